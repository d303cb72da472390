import { defineScope } from '../../auth/domain/scope';

/** What a key needs to read the catalogue: list and get pets, and count them. */
export const PETS_READ = defineScope('pets:read', 'List, get and count pets');

/** What a key needs to change the catalogue: create, change and remove pets. */
export const PETS_WRITE = defineScope('pets:write', 'Create, change and remove pets');
