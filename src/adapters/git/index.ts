export * from './git-workspace.js';
export * from './git-workspace-provider.js';
