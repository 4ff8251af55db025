// Dealing a simulator's roles to a team's members: every role has an owner, whatever the team's size.

/**
 * members in join order → the role ids each one owns. Four members or more: one role each, in deal
 * order, the fifth and later are analysts (no role). Fewer: roles go round-robin so every role has an
 * owner (a team of one owns them all).
 */
export function dealRoles(roleIds: readonly string[], memberCount: number): string[][] {
  const out: string[][] = Array.from({ length: memberCount }, () => []);
  if (memberCount === 0) return out;
  for (const [i, role] of roleIds.entries()) out[i % memberCount].push(role);
  return out;
}
