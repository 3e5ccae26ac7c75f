/** Fixture: a small Radarr-shaped OpenAPI description (v5), as the fake Servarr serves it. */
export const radarrV5OpenApi = {
  openapi: '3.0.1',
  info: {
    title: 'Radarr',
    version: 'v5',
  },
  paths: {
    '/api/v5/movie': {
      get: {
        tags: ['Movie'],
        parameters: [],
        responses: {
          '200': {
            description: 'OK',
          },
        },
      },
      post: {
        tags: ['Movie'],
        parameters: [],
        responses: {
          '200': {
            description: 'OK',
          },
        },
      },
    },
    '/api/v5/movie/{id}': {
      get: {
        tags: ['Movie'],
        parameters: [
          {
            name: 'id',
            in: 'path',
            required: true,
            schema: {
              type: 'integer',
              format: 'int32',
            },
          },
        ],
        responses: {
          '200': {
            description: 'OK',
          },
        },
      },
      put: {
        tags: ['Movie'],
        parameters: [
          {
            name: 'id',
            in: 'path',
            required: true,
            schema: {
              type: 'string',
            },
          },
        ],
        responses: {
          '200': {
            description: 'OK',
          },
        },
      },
      delete: {
        tags: ['Movie'],
        parameters: [
          {
            name: 'id',
            in: 'path',
            required: true,
            schema: {
              type: 'integer',
              format: 'int32',
            },
          },
        ],
        responses: {
          '200': {
            description: 'OK',
          },
        },
      },
    },
    '/api/v5/movie/lookup': {
      get: {
        tags: ['MovieLookup'],
        parameters: [],
        responses: {
          '200': {
            description: 'OK',
          },
        },
      },
    },
    '/api/v5/movie/editor': {
      put: {
        tags: ['MovieEditor'],
        parameters: [],
        responses: {
          '200': {
            description: 'OK',
          },
        },
      },
      delete: {
        tags: ['MovieEditor'],
        parameters: [],
        responses: {
          '200': {
            description: 'OK',
          },
        },
      },
    },
    '/api/v5/movie/{id}/file': {
      get: {
        tags: ['MovieFile'],
        parameters: [
          {
            name: 'id',
            in: 'path',
            required: true,
            schema: {
              type: 'integer',
              format: 'int32',
            },
          },
        ],
        responses: {
          '200': {
            description: 'OK',
          },
        },
      },
    },
    '/api/v5/calendar': {
      get: {
        tags: ['Calendar'],
        parameters: [],
        responses: {
          '200': {
            description: 'OK',
          },
        },
      },
    },
    '/api/v5/command': {
      get: {
        tags: ['Command'],
        parameters: [],
        responses: {
          '200': {
            description: 'OK',
          },
        },
      },
      post: {
        tags: ['Command'],
        parameters: [],
        responses: {
          '200': {
            description: 'OK',
          },
        },
      },
    },
    '/api/v5/command/{id}': {
      get: {
        tags: ['Command'],
        parameters: [
          {
            name: 'id',
            in: 'path',
            required: true,
            schema: {
              type: 'integer',
              format: 'int32',
            },
          },
        ],
        responses: {
          '200': {
            description: 'OK',
          },
        },
      },
      delete: {
        tags: ['Command'],
        parameters: [
          {
            name: 'id',
            in: 'path',
            required: true,
            schema: {
              type: 'integer',
              format: 'int32',
            },
          },
        ],
        responses: {
          '200': {
            description: 'OK',
          },
        },
      },
    },
    '/api/v5/config/host': {
      get: {
        tags: ['HostConfig'],
        parameters: [],
        responses: {
          '200': {
            description: 'OK',
          },
        },
      },
      put: {
        tags: ['HostConfig'],
        parameters: [],
        responses: {
          '200': {
            description: 'OK',
          },
        },
      },
    },
    '/api/v5/system/status': {
      get: {
        tags: ['System'],
        parameters: [],
        responses: {
          '200': {
            description: 'OK',
          },
        },
      },
    },
    '/api/v5/system/backup': {
      get: {
        tags: ['Backup'],
        parameters: [],
        responses: {
          '200': {
            description: 'OK',
          },
        },
      },
    },
    '/api/v5/tag/detail/{id}': {
      get: {
        tags: ['TagDetails'],
        parameters: [
          {
            name: 'id',
            in: 'path',
            required: true,
            schema: {
              type: 'integer',
              format: 'int32',
            },
          },
        ],
        responses: {
          '200': {
            description: 'OK',
          },
        },
      },
    },
    '/api/v5/test/stream': {
      get: {
        tags: ['Test'],
        parameters: [],
        responses: {
          '200': {
            description: 'OK',
          },
        },
      },
    },
    '/api/v5/test/slow': {
      get: {
        tags: ['Test'],
        parameters: [],
        responses: {
          '200': {
            description: 'OK',
          },
        },
      },
    },
    '/api/v5/test/status/{code}': {
      get: {
        tags: ['Test'],
        parameters: [
          {
            name: 'code',
            in: 'path',
            required: true,
            schema: {
              type: 'integer',
            },
          },
        ],
        responses: {
          '200': {
            description: 'OK',
          },
        },
      },
    },
    '/api/v5/test/upload': {
      post: {
        tags: ['Test'],
        parameters: [],
        responses: {
          '200': {
            description: 'OK',
          },
        },
      },
    },
    '/ping': {
      get: {
        tags: ['Ping'],
        parameters: [],
        responses: {
          '200': {
            description: 'OK',
          },
        },
      },
    },
    '/{path}': {
      get: {
        tags: ['StaticResource'],
        parameters: [
          {
            name: 'path',
            in: 'path',
            required: true,
            schema: {
              type: 'string',
            },
          },
        ],
        responses: {
          '200': {
            description: 'OK',
          },
        },
      },
    },
  },
};
