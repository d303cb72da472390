import { defineScope } from '../../auth/domain/scope';

/** What a key needs to read the catalogue: list and get pets. */
export const PETS_READ = defineScope('pets:read', 'List and get pets');

/** What a key needs to add to the catalogue: create pets. */
export const PETS_WRITE = defineScope('pets:write', 'Create pets');
