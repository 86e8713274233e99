export * from './docker-endpoint.js';
export * from './docker-sandbox.js';
export * from './docker-sandbox-provider.js';
export * from './labels.js';
export * from './reaper.js';
