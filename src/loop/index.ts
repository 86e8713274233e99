export * from './events.js';
export * from './run-loop.js';
export * from './schemas.js';
export * from './task.js';
