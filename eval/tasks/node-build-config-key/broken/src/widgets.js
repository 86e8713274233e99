export const button = (label) => ({ type: 'button', label, parent: byId('root') });
