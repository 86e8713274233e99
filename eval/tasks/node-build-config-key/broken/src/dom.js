export const byId = (id) => ({ id, children: [] });
