// A failed write of a backup or a restore is said as a full disk when it is one, whatever the error says; an I/O error on a disk with room is said as it is.
import t from 'tap';
import { tmpdir } from 'node:os';
import { writeFailure } from '../../management-api/src/backup/backup-errors.js';

const failure = (code: string, message: string) => Object.assign(new Error(message), { code });

t.test('ENOSPC and SQLITE_FULL are a full disk wherever they happen', async (t) => {
  for (const code of ['ENOSPC', 'SQLITE_FULL'])
    t.match(
      (await writeFailure(failure(code, 'no room'), 'the backup /b', tmpdir())).message,
      /^no space left on the device while writing the backup \/b: /,
      code,
    );
});

t.test('an I/O error on a filesystem with room is said as it is, naming what was written', async (t) => {
  for (const code of ['SQLITE_IOERR_SHMSIZE', 'SQLITE_IOERR_WRITE', 'EIO'])
    t.equal((await writeFailure(failure(code, 'disk I/O error'), 'the backup /b', tmpdir())).message, 'the backup /b: disk I/O error', code);
  t.equal((await writeFailure(failure('EDQUOT', 'quota'), 'the backup /b', tmpdir())).message, 'the disk quota is exhausted while writing the backup /b');
  t.equal(
    (await writeFailure(failure('SQLITE_IOERR_SHMSIZE', 'disk I/O error'), 'the backup /b', '/no/such/dir')).message,
    'the backup /b: disk I/O error',
    'a filesystem that cannot be asked: no guess',
  );
});
