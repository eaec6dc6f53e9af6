/**
 * Why an operation was refused; the API maps each kind to its status (400, 404, 409, and 500 where the spec answers
 * a refusal with 500, as for pairing outside idle; 403 for a role too low, in the extensions outside the spec).
 */
export type FailureKind = 'invalid' | 'forbidden' | 'not-found' | 'conflict' | 'internal';

/**
 * The one error domain services throw for a refused operation. `message` is the OperationFailed `cause`: a sentence
 * a person can act on. Thrown inside a write transaction, it rolls the whole transaction back.
 */
export class OperationError extends Error {
  constructor(
    readonly kind: FailureKind,
    message: string,
    /** Extra members of the OperationFailed body (for example the per-key results of a refused settings write). */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'OperationError';
  }
}

export const invalid = (message: string, details?: Record<string, unknown>) => new OperationError('invalid', message, details);
export const forbidden = (message: string) => new OperationError('forbidden', message);
export const notFound = (message: string) => new OperationError('not-found', message);
export const conflict = (message: string) => new OperationError('conflict', message);
export const internal = (message: string) => new OperationError('internal', message);

const SURROGATE_PAIRS = /[\uD800-\uDBFF][\uDC00-\uDFFF]/g;

/**
 * Length in characters (Unicode code points), the unit of every length limit in the spec: the UTF-16 length less
 * one for each surrogate pair (a lone surrogate counts as one, as iterating the string does). Native matching: a
 * thousand values of 1,000 characters are counted in well under a millisecond.
 */
export function charCount(text: string): number {
  return text.length - (text.match(SURROGATE_PAIRS)?.length ?? 0);
}

/** Lists ids for a cause text, cut after a few so a cause stays readable. */
export function listIds(ids: readonly string[], max = 5): string {
  const shown = ids
    .slice(0, max)
    .map((id) => JSON.stringify(id))
    .join(', ');
  return ids.length > max ? `${shown} and ${ids.length - max} more` : shown;
}
