export * from './local-sandbox.js';
export * from './local-sandbox-provider.js';
