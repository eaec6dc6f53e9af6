import { expect, test } from 'vitest';
import { OCPP16_ERROR_CODES } from './raw-central-system.js';
import { useRawChargers } from './raw-charger.js';
import { until } from './support.js';

const { charger } = useRawChargers();

/**
 * Issue 29 item 3: every CALLERROR the charge point sends under OCPP 1.6 uses one of the ten OCPP-J 1.6 codes (the
 * independent central system also refuses any other code after each test), each as 1.6 defines it.
 */
test('CALLERRORs use the OCPP-J 1.6 codes: unknown action, malformed frames, schema violations', async () => {
  const c = await charger();
  await c.online();
  const code = async (frame: unknown[] | string) => {
    const before = c.cs.errors().length;
    const [outcome] = c.cs.together([frame]);
    if (outcome) {
      const answer = await outcome;
      return 'error' in answer ? answer.error.code : 'answered';
    }
    await until(c, () => c.cs.errors().length > before, 'a CALLERROR');
    return c.cs.errors().at(-1)!.code;
  };
  expect(await code([2, 'e1', 'FooBar', {}])).toBe('NotImplemented');
  expect(await code('this is not JSON')).toBe('FormationViolation');
  expect(await code('{"not":"an array"}')).toBe('FormationViolation');
  expect(await code('["2","e2","Heartbeat",{}]')).toBe('FormationViolation'); // message type not a number
  expect(await code('[2,5,"GetConfiguration",{}]')).toBe('FormationViolation'); // numeric message id
  expect(await code('[7,"e3","GetConfiguration",{}]')).toBe('ProtocolError'); // no such message type in OCPP-J 1.6
  expect(await code([2, 'e4', 'ChangeConfiguration', { key: 'HeartbeatInterval' }])).toBe('OccurenceConstraintViolation'); // value missing
  expect(await code([2, 'e5', 'ChangeConfiguration', { key: 7, value: '60' }])).toBe('TypeConstraintViolation');
  expect(await code([2, 'e6', 'ChangeConfiguration', { key: 'HeartbeatInterval', value: '60', extra: 1 }])).toBe('PropertyConstraintViolation');
  expect(await code([2, 'e7', 'ChangeConfiguration', { key: 'K'.repeat(51), value: '60' }])).toBe('FormationViolation'); // over maxLength
  for (const e of c.cs.errors()) expect(OCPP16_ERROR_CODES).toContain(e.code);
  // The link is still up and serves calls.
  expect(await c.cs.call('GetConfiguration', { key: ['NumberOfConnectors'] })).toEqual({
    result: { configurationKey: [{ key: 'NumberOfConnectors', readonly: true, value: '1' }] },
  });
  c.cs.invalid.length = 0; // the codes were checked one by one above; the other checks held
});
