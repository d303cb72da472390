/** What the catalogue's use cases count; the operations module keeps the figures (bound in PetsModule). */
export abstract class PetMetrics {
  abstract countPetCreated(): void;
}
