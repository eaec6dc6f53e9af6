/** Where the core's log lines go (the main thread's logger, through a message). */
export interface CoreLog {
  debug(fields: object, msg: string): void;
  info(fields: object, msg: string): void;
  warn(fields: object, msg: string): void;
  error(fields: object, msg: string): void;
}
