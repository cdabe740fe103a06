// Roles are ordered; each includes the ones below it (docs/decisions.md).
export const Role = {
  Viewer: 'viewer',
  Responder: 'responder',
  Admin: 'admin',
  Owner: 'owner',
} as const;
export type Role = (typeof Role)[keyof typeof Role];

const rank: Record<Role, number> = { viewer: 1, responder: 2, admin: 3, owner: 4 };

export function roleAtLeast(held: Role, needed: Role): boolean {
  return rank[held] >= rank[needed];
}
