import { spawnSync } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import { ENTITIES } from '../../services/mqtt/discovery.js';

/**
 * The discovery's templates rendered by Jinja2 (Python), the engine Home Assistant renders them with, the way its
 * MQTT entities do: `value` is the payload, `value_json` the payload parsed as JSON and undefined when it is not
 * JSON (a cleared retained value is empty). Undefined variables are errors here (StrictUndefined), stricter than
 * Home Assistant's logging undefined, so a template that only works by accident fails. Needs python3 with jinja2
 * (Debian: python3-jinja2; .ci/run installs it).
 */

const RENDER = `
import json, sys
from jinja2 import StrictUndefined
from jinja2.sandbox import ImmutableSandboxedEnvironment
env = ImmutableSandboxedEnvironment(undefined=StrictUndefined)
out = []
for template, payload in json.loads(sys.stdin.read()):
    variables = {"value": payload}
    try:
        variables["value_json"] = json.loads(payload)
    except ValueError:
        pass
    try:
        out.append({"ok": env.from_string(template).render(**variables)})
    except Exception as e:
        out.append({"error": type(e).__name__ + ": " + str(e)})
print(json.dumps(out))
`;

const jinja = spawnSync('python3', ['-c', 'import jinja2'], { encoding: 'utf8' });
const available = jinja.status === 0;

function render(cases: Array<[template: string, payload: string]>): Array<{ ok?: string; error?: string }> {
  const run = spawnSync('python3', ['-c', RENDER], { input: JSON.stringify(cases), encoding: 'utf8' });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout);
}

// Required in the run against mosquitto (.ci/run installs python3-jinja2 with it); skipped without Jinja2 otherwise.
describe.skipIf(!available && process.env.MQTT_TEST_BROKER !== 'mosquitto')('discovery templates in Jinja2', () => {
  test('the messages sensor: its count and attributes, also for the cleared (empty) retained value', () => {
    const messages = ENTITIES.find((e) => e.object === 'messages')!.config as { value_template: string; json_attributes_template: string };
    const list = JSON.stringify([
      { severity: 'ERROR', errorCode: 'E1', message: 'x' },
      { severity: 'WARNING', errorCode: 'W1', message: 'y' },
    ]);
    const rendered = render([
      [messages.value_template, list],
      [messages.value_template, '[]'],
      [messages.value_template, ''],
      [messages.json_attributes_template, list],
      [messages.json_attributes_template, ''],
    ]);
    const values = rendered.map((r) => r.ok ?? r.error);
    expect(values.slice(0, 3)).toEqual(['2', '0', '0']);
    expect(values.slice(3).map((v) => JSON.parse(v!))).toEqual([{ messages: JSON.parse(list) }, { messages: [] }]);
  });

  test('the charging mode select: each option becomes the JSON string the command takes', () => {
    const select = ENTITIES.find((e) => e.object === 'charging_mode')!.config as { command_template: string; options: string[] };
    const rendered = render(select.options.map((option) => [select.command_template, option]));
    expect(rendered.map((r) => r.ok ?? r.error)).toEqual(['"fast"', '"solar"', '"minSolar"']);
    expect(rendered.map((r) => JSON.parse(r.ok!))).toEqual(select.options);
  });

  test('the goal texts (schedule, departure time): the text becomes the JSON string the command takes, quotes escaped', () => {
    for (const object of ['charging_schedule', 'departure_time']) {
      const text = ENTITIES.find((e) => e.object === object)!.config as { command_template: string };
      const values = ['Mo-Fr 22:00-06:00, Sa-Su 00:00-24:00', '07:30', '', 'a "quoted" text'];
      const rendered = render(values.map((value) => [text.command_template, value]));
      expect(
        rendered.map((r) => JSON.parse(r.ok!)),
        object,
      ).toEqual(values);
    }
  });

  test('every template of every entity renders for an empty payload', () => {
    const templates = ENTITIES.flatMap((e) =>
      Object.entries(e.config)
        .filter(([key]) => key.endsWith('_template'))
        .map(([, template]) => [template as string, ''] as [string, string]),
    );
    expect(templates.length).toBeGreaterThan(0);
    for (const r of render(templates)) expect(r.error).toBeUndefined();
  });
});
