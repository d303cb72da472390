export const PET_STATUSES = ['available', 'pending', 'sold'] as const;

export type PetStatus = (typeof PET_STATUSES)[number];

export const DEFAULT_PET_STATUS: PetStatus = 'available';

/** Where each status may move: `sold` is final. */
const MOVES: Readonly<Record<PetStatus, readonly PetStatus[]>> = {
  available: ['pending', 'sold'],
  pending: ['available', 'sold'],
  sold: [],
};

/** Whether a pet of status `from` may take status `to`; staying put is no move and always allowed. */
export function canMoveStatus(from: PetStatus, to: PetStatus): boolean {
  return from === to || MOVES[from].includes(to);
}
