// Hosts without systemd (containers, WSL, minimal VMs) are common: every user doc that starts a
// service with systemctl also says how to start it without systemd, in the same section.
import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../helpers/cli.js';

const docs = path.join(repoRoot, 'docs/user');

/** The markdown sections (from one heading to the next) of a document. */
const sections = (text: string) => text.split(/^(?=#{1,6} )/m);

t.test('each section of docs/user that uses systemctl gives a way without systemd', async (t) => {
  let seen = 0;
  for (const file of readdirSync(docs).filter((f) => f.endsWith('.md'))) {
    for (const section of sections(readFileSync(path.join(docs, file), 'utf8'))) {
      if (!/systemctl start/.test(section)) continue;
      seen++;
      const heading = section.split('\n', 1)[0];
      t.match(section, /without systemd|neither/i, `${file} "${heading}" says what to do without systemd`);
      t.match(section, /^\s*sudo sh -c 'dockerd [^']*&'$/m, `${file} "${heading}" shows the engine started directly`);
    }
  }
  t.ok(seen > 0, 'the quickstart still shows how to start the engine');
});
