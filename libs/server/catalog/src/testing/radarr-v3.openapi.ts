/** Fixture: a small Radarr-shaped OpenAPI description (v3), as the fake Servarr serves it. */
export const radarrV3OpenApi = {
  openapi: '3.0.1',
  info: {
    title: 'Radarr',
    version: 'v3',
  },
  paths: {
    '/api/v3/movie': {
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
    '/api/v3/movie/{id}': {
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
    '/api/v3/movie/lookup': {
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
    '/api/v3/movie/editor': {
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
    '/api/v3/movie/{id}/file': {
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
    '/api/v3/calendar': {
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
    '/api/v3/command': {
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
    '/api/v3/command/{id}': {
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
    '/api/v3/config/host': {
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
    '/api/v3/system/status': {
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
    '/api/v3/system/backup': {
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
    '/api/v3/tag/detail/{id}': {
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
    '/api/v3/test/stream': {
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
    '/api/v3/test/slow': {
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
    '/api/v3/test/status/{code}': {
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
    '/api/v3/test/upload': {
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
