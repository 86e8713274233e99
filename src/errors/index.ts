export * from './config-errors.js';
export * from './environment-errors.js';
export * from './git-errors.js';
export * from './github-errors.js';
export * from './job-errors.js';
export * from './model-errors.js';
export * from './sandbox-errors.js';
export * from './selfdebug-error.js';
