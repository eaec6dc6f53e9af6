import { CallError } from './transport.js';

/**
 * The location of a file the central system has the charge point fetch or send (UpdateFirmware, GetDiagnostics):
 * an http or https URI, else PropertyConstraintViolation naming what this charge point does (`downloads`, `uploads`).
 */
export function transferLocation(raw: string, does: 'downloads' | 'uploads'): URL {
  let location: URL;
  try {
    location = new URL(raw);
  } catch {
    throw new CallError('PropertyConstraintViolation', 'location is not a URI');
  }
  if (location.protocol !== 'http:' && location.protocol !== 'https:') {
    throw new CallError('PropertyConstraintViolation', `location: this charge point ${does} over http:// and https:// only, not ${location.protocol}//`);
  }
  return location;
}

/** The request for `target`: user and password in the URL become basic authentication, the URL goes without them. */
export function requestOf(target: URL): { url: URL; headers: Record<string, string> } {
  const headers: Record<string, string> = {};
  if (target.username || target.password) {
    headers.Authorization = `Basic ${Buffer.from(`${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}`).toString('base64')}`;
  }
  const url = new URL(target);
  url.username = '';
  url.password = '';
  return { url, headers };
}
