import { AppError } from '../http/errors.js';

/** Another organization's webhook gets the same answer as one that does not exist. */
export const webhookNotFound = (field?: string) => new AppError('NOT_FOUND', 'No webhook has that id.', field ? { field } : {});

export const deliveryNotFound = (field?: string) => new AppError('NOT_FOUND', 'This webhook has no delivery with that id.', field ? { field } : {});
