/**
 * Port: whether a placed order holds a pet. The orders module answers it; a
 * held pet's status and existence are the order's (the caller must still write
 * conditionally on the status it read, as an order changes that status too).
 */
export abstract class PetHolds {
  abstract isHeld(petId: number): Promise<boolean>;
}
