export * from './capped-output.js';
export * from './output-recorder.js';
export * from './sandbox.js';
export * from './with-sandbox.js';
