// A separate Arbor process for one-writer tests: opens a session for writing, says so on stdout,
// then waits (it is killed by the test, as a crash would end it).
const { SessionManager } = require(process.argv[2]);
SessionManager.open(process.argv[3], { lock: { heartbeatMs: 100, staleMs: 60000 } }).then(
  (sm) => {
    process.stdout.write(`held ${sm.getSessionFile()}\n`);
    setInterval(() => undefined, 1000);
  },
  (err) => {
    process.stdout.write(`refused ${err.code}: ${err.message}\n`);
    process.exit(3);
  },
);
