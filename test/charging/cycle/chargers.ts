/** The simulated chargers of the charge-cycle scenarios (one set for the whole file, stopped after each test). */
import { useChargers, type Charger } from '../scenario.js';

export const chargers = useChargers();
export const charger = (): Promise<Charger> => chargers.start();

export const brief = (s: any) => [s.systemState, s.ocppState, s.authState];
