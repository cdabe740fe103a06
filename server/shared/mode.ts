/** Service modes: setup (no valid licence), configuring (no working connection), operating. */
export const Mode = { Setup: 'setup', Configuring: 'configuring', Operating: 'operating' } as const;
export type Mode = (typeof Mode)[keyof typeof Mode];

const rank: Record<Mode, number> = { setup: 0, configuring: 1, operating: 2 };

export function modeAtLeast(mode: Mode, needed: Mode): boolean {
  return rank[mode] >= rank[needed];
}
