import { idProblem, type TableRestoreRules } from '../database/backup/restore-rules';
import { InvalidInputError } from '../errors/domain/domain-error';
import { StrictValidationPipe } from '../http/validation';
import { CreatePetDto } from './http/dto/create-pet.dto';

const pipe = new StrictValidationPipe();

/** A restored pet keeps the rules of a create: an id in range, and its name, category and status as the create's body is checked. */
export const PETS_RESTORE_RULES: TableRestoreRules = {
  table: 'pets',
  rowKey: ['id'],
  numbered: 'id',
  async checkRow(row) {
    const id = idProblem(row, ['id']);
    if (id) return id;
    const body = { name: row.name, categoryId: row.category_id, status: row.status };
    try {
      await pipe.transform(body, { type: 'body', metatype: CreatePetDto, data: undefined });
      return undefined;
    } catch (error) {
      if (error instanceof InvalidInputError) return error.message;
      throw error;
    }
  },
};
