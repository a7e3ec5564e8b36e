import { AppError, type AppErrorOptions } from '../http/errors.js';

/**
 * The CRM's answers for ids that do not exist. Another organization's record gets the same
 * answer as a missing one, so ids leak nothing.
 */
export const contactNotFound = (options?: AppErrorOptions) => new AppError('CONTACT_NOT_FOUND', 'No contact has that id.', options);
export const opportunityNotFound = () => new AppError('OPPORTUNITY_NOT_FOUND', 'No opportunity has that id.');
export const customFieldNotFound = () => new AppError('CUSTOM_FIELD_NOT_FOUND', 'No custom field has that id.');
// A missing pipeline or stage in a path is a plain 404: PIPELINE_NOT_FOUND and STAGE_NOT_FOUND
// are the 422s of a form or an opportunity pointing at a removed one.
export const pipelineNotFound = () => new AppError('NOT_FOUND', 'No pipeline has that id.');
export const stageNotFound = () => new AppError('NOT_FOUND', 'This pipeline has no stage with that id.');
