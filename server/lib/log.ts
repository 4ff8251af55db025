// What the server writes to its log through: Fastify's pino logger in production, a recorder or nothing in tests.
export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** A logger that writes nothing. */
export const quietLog: Logger = { info() {}, warn() {}, error() {} };
