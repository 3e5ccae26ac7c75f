/** A small OpenAPI description in the shape Servarr publishes, for one API version. */
export function fakeOpenApi(version: string, title = 'Radarr'): object {
  const v = `/api/${version}`;
  const id = { name: 'id', in: 'path', required: true, schema: { type: 'integer', format: 'int32' } };
  const op = (tag: string, parameters: object[] = []) => ({
    tags: [tag],
    parameters,
    responses: { '200': { description: 'OK' } },
  });
  return {
    openapi: '3.0.1',
    info: { title, version },
    paths: {
      [`${v}/movie`]: { get: op('Movie'), post: op('Movie') },
      [`${v}/movie/{id}`]: {
        get: op('Movie', [id]),
        put: op('Movie', [{ ...id, schema: { type: 'string' } }]),
        delete: op('Movie', [id]),
      },
      [`${v}/movie/lookup`]: { get: op('MovieLookup') },
      [`${v}/movie/editor`]: { put: op('MovieEditor'), delete: op('MovieEditor') },
      [`${v}/movie/{id}/file`]: { get: op('MovieFile', [id]) },
      [`${v}/calendar`]: { get: op('Calendar') },
      [`${v}/command`]: { get: op('Command'), post: op('Command') },
      [`${v}/command/{id}`]: { get: op('Command', [id]), delete: op('Command', [id]) },
      [`${v}/config/host`]: { get: op('HostConfig'), put: op('HostConfig') },
      [`${v}/system/status`]: { get: op('System') },
      [`${v}/system/backup`]: { get: op('Backup') },
      [`${v}/tag/detail/{id}`]: { get: op('TagDetails', [id]) },
      [`${v}/test/stream`]: { get: op('Test') },
      [`${v}/test/slow`]: { get: op('Test'), post: op('Test') },
      [`${v}/test/status/{code}`]: {
        get: op('Test', [{ name: 'code', in: 'path', required: true, schema: { type: 'integer' } }]),
      },
      [`${v}/test/upload`]: { post: op('Test') },
      '/ping': { get: op('Ping') },
      '/{path}': {
        get: op('StaticResource', [{ name: 'path', in: 'path', required: true, schema: { type: 'string' } }]),
      },
    },
  };
}
