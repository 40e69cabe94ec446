// The two supervisord questions (programme/supervised.ts) and their one signal each; the callers
// that used to read the variables themselves now follow these answers.
import t from 'tap';
import { boxSupervisorUrl, startedBySupervisord } from '../../management-api/src/programme/supervised.js';
import { reportStageBCompleted } from '../../management-api/src/boot/stage-b-report.js';
import { supervisorSocket } from '../../management-api/src/probes/supervisor-programs.js';
import { runtimePaths } from '../../management-api/src/runtime-paths.js';

t.test('started by supervisord: SUPERVISOR_ENABLED=1 and nothing else', async (t) => {
  t.equal(startedBySupervisord({ SUPERVISOR_ENABLED: '1' }), true);
  for (const value of [undefined, '', '0', 'true']) t.equal(startedBySupervisord({ SUPERVISOR_ENABLED: value }), false, `SUPERVISOR_ENABLED=${String(value)}`);
  t.equal(
    startedBySupervisord({ AGENTBOX_SUPERVISOR_URL: 'unix:///run/agentbox/supervisord.sock' }),
    false,
    "the box's supervisor URL alone does not make supervisord the parent",
  );
});

t.test("the box's supervisord: AGENTBOX_SUPERVISOR_URL, an empty one being none", async (t) => {
  t.equal(boxSupervisorUrl({ AGENTBOX_SUPERVISOR_URL: 'unix:///r/run/agentbox/supervisord.sock' }), 'unix:///r/run/agentbox/supervisord.sock');
  t.equal(boxSupervisorUrl({ AGENTBOX_SUPERVISOR_URL: '' }), undefined);
  t.equal(boxSupervisorUrl({ SUPERVISOR_ENABLED: '1' }), undefined, "a supervisord parent that is not the box's gives no URL");
  const paths = runtimePaths({ AGENTBOX_ROOT: '/r' });
  t.equal(supervisorSocket({ AGENTBOX_SUPERVISOR_URL: 'unix:///elsewhere.sock' }, paths), '/elsewhere.sock', 'the probe reads the same URL');
  t.equal(supervisorSocket({}, paths), paths.supervisorSocket, 'and falls back to the run directory');
});

t.test('stage B writes its marker only when supervisord started it', async (t) => {
  t.equal(reportStageBCompleted({ AGENTBOX_SUPERVISOR_URL: 'unix:///x.sock' }, -1), false, 'the box URL alone: nothing written (a bad descriptor would throw)');
});
