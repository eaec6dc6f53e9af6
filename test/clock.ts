// The manual clock lives with the development tools: the energy benchmark plays whole days on it too.
export { ManualClock, settle } from '../bin/dev/manual-clock.js';
