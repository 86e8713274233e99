export * from './fix-plan.js';
export * from './run-fix-plan.js';
export * from './run-settings.js';
