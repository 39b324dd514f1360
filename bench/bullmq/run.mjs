#!/usr/bin/env node
// BullMQ benchmark peer for the Java bench.
//
//   node run.mjs --redis redis://127.0.0.1:PORT/DB --pg postgres://USER:PASS@127.0.0.1:PORT/DBNAME \
//      --queue NAME --jobs N --concurrency C --effect ledger|noop --mode drain|latency [--rate R [--untimed-jobs W]]
//
// In latency mode the first W of the N jobs go out at the same rate with no timestamp: they bring
// the new worker and its connections to a steady state and are left out of the percentiles.
//
// Prints exactly ONE JSON line on stdout; every log line goes to stderr.
// Exits non-zero (with a message on stderr) on any error.

import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { Queue, Worker } from 'bullmq';
import IORedis from 'ioredis';
import pg from 'pg';

const require = createRequire(import.meta.url);
const BULLMQ_VERSION = require('bullmq/package.json').version;

// Keep stdout clean for the single result line, whatever a library prints.
const stdoutWrite = process.stdout.write.bind(process.stdout);
console.log = console.error;
console.info = console.error;
const log = (...args) => console.error('[bullmq-peer]', ...args);

const CHUNK = 1000;
const ATTEMPTS = 3;

// Same SQL as the Java side (tables live in schema echomq, created by its Flyway migrations).
const SQL_EFFECT = {
  name: 'bench_effect_insert',
  text:
    // The same per-transaction limits the Java effect store scopes in the same statement.
    "WITH limits AS MATERIALIZED (SELECT set_config('lock_timeout', '5000ms', true), " +
    "set_config('idle_in_transaction_session_timeout', '60000ms', true), " +
    "set_config('synchronous_commit', 'on', true)) " +
    // Keyed like ours by queue, job id and the job's creation time (BullMQ's job.timestamp).
    'INSERT INTO echomq.effect (queue, job_id, job_created_ms, attempt) ' +
    'SELECT $1::text, $2::bigint, $3::bigint, $4::integer FROM limits ' +
    'WHERE NOT EXISTS (SELECT 1 FROM echomq.effect WHERE queue = $1::text AND job_id = $2::bigint AND job_created_ms = 0) ' +
    'ON CONFLICT (queue, job_id, job_created_ms) DO NOTHING RETURNING job_id, applied_at',
};
const SQL_LEDGER = {
  name: 'bench_ledger_apply',
  text:
    'WITH account AS (INSERT INTO echomq.demo_account (id, balance_cents) VALUES ($1, $2) ' +
    'ON CONFLICT (id) DO UPDATE SET balance_cents = echomq.demo_account.balance_cents + EXCLUDED.balance_cents ' +
    'RETURNING id) ' +
    'INSERT INTO echomq.demo_ledger (queue, job_id, attempt, account, amount_cents) ' +
    'SELECT $3, $4, $5, id, $2 FROM account',
};

function usage(msg) {
  throw new Error(
    `${msg}\nusage: node run.mjs --redis redis://HOST:PORT/DB [--pg postgres://USER:PASS@HOST:PORT/DB] ` +
      '--queue NAME --jobs N --concurrency C --effect ledger|noop --mode drain|latency [--rate R [--untimed-jobs W]] ' +
      '[--timeout-seconds S]',
  );
}

function parseOptions(argv) {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      redis: { type: 'string' },
      pg: { type: 'string' },
      queue: { type: 'string' },
      jobs: { type: 'string' },
      concurrency: { type: 'string' },
      effect: { type: 'string' },
      mode: { type: 'string' },
      rate: { type: 'string' },
      'untimed-jobs': { type: 'string' },
      'timeout-seconds': { type: 'string' },
    },
  });
  const positiveInt = (name) => {
    const n = Number(values[name]);
    if (!Number.isInteger(n) || n < 1) usage(`--${name} must be a positive integer, got ${values[name]}`);
    return n;
  };
  if (!values.redis) usage('--redis is required');
  if (!values.queue) usage('--queue is required');
  const effect = values.effect ?? usage('--effect is required');
  if (effect !== 'ledger' && effect !== 'noop') usage(`--effect must be ledger or noop, got ${effect}`);
  const mode = values.mode ?? usage('--mode is required');
  if (mode !== 'drain' && mode !== 'latency') usage(`--mode must be drain or latency, got ${mode}`);
  if (effect === 'ledger' && !values.pg) usage('--pg is required for --effect ledger');
  let rate = null;
  if (mode === 'latency') {
    rate = Number(values.rate);
    if (!Number.isFinite(rate) || rate <= 0) usage(`--rate must be a positive number in latency mode, got ${values.rate}`);
  }
  const untimedJobs = values['untimed-jobs'] === undefined ? 0 : Number(values['untimed-jobs']);
  if (!Number.isInteger(untimedJobs) || untimedJobs < 0) usage(`--untimed-jobs must be a whole number, got ${values['untimed-jobs']}`);
  if (untimedJobs > 0 && mode !== 'latency') usage('--untimed-jobs is for --mode latency');
  if (untimedJobs >= Number(values.jobs)) usage(`--untimed-jobs must leave some of the ${values.jobs} jobs timed, got ${untimedJobs}`);
  const timeoutSeconds = values['timeout-seconds'] === undefined ? 900 : positiveInt('timeout-seconds');
  return {
    redisUrl: values.redis,
    pgUrl: values.pg,
    queueName: values.queue,
    jobs: positiveInt('jobs'),
    concurrency: positiveInt('concurrency'),
    effect,
    mode,
    rate,
    untimedJobs,
    timeoutSeconds,
  };
}

function redisOptions(url) {
  const u = new URL(url);
  if (u.protocol !== 'redis:') usage(`--redis must be a redis:// URL, got ${url}`);
  const db = u.pathname && u.pathname !== '/' ? Number(u.pathname.slice(1)) : 0;
  if (!Number.isInteger(db) || db < 0) usage(`bad database number in --redis ${url}`);
  const opts = { host: u.hostname || '127.0.0.1', port: u.port ? Number(u.port) : 6379, db };
  if (u.username) opts.username = decodeURIComponent(u.username);
  if (u.password) opts.password = decodeURIComponent(u.password);
  return opts;
}

const nowNs = () => process.hrtime.bigint();
const nsToMs = (ns) => Number(ns) / 1e6;

// CPU time the server has used so far (user and system), as the Java side reads it.
async function valkeyCpuNow(redis) {
  const info = await redis.info('cpu');
  let seconds = 0;
  for (const line of info.split(/\r?\n/)) {
    const [key, value] = line.split(':');
    if (key === 'used_cpu_user' || key === 'used_cpu_sys') seconds += Number(value);
  }
  return seconds;
}

function percentile(sorted, q) {
  if (sorted.length === 0) return null;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return Math.round(sorted[rank - 1] * 1000) / 1000;
}

function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, rej) => {
    timer = setTimeout(() => rej(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const jobData = (i, extra) => ({ account: `acct-${i % 1000}`, amountCents: 1 + (i % 97), ...extra });

async function main() {
  const opt = parseOptions(process.argv.slice(2));
  const { queueName, jobs: N, concurrency: C, effect, mode } = opt;
  const baseRedis = redisOptions(opt.redisUrl);

  const queue = new Queue(queueName, {
    connection: { ...baseRedis },
    defaultJobOptions: { removeOnComplete: true, removeOnFail: false, attempts: ATTEMPTS },
  });
  queue.on('error', (err) => log('queue error:', err?.message ?? err));
  // Reads the server's CPU time around the run; a connection of its own, idle in between.
  const probe = new IORedis({ ...baseRedis, lazyConnect: true, maxRetriesPerRequest: 1 });

  let pool = null;
  let worker = null;
  const closeAll = async () => {
    const errors = [];
    for (const [what, fn] of [
      ['worker', () => worker?.close()],
      ['queue', () => queue.close()],
      ['pg pool', () => pool?.end()],
      ['probe', () => probe.disconnect()],
    ]) {
      try {
        await withTimeout(Promise.resolve().then(fn), 10_000, `closing the ${what}`);
      } catch (err) {
        errors.push(`${what}: ${err?.message ?? err}`);
      }
    }
    if (errors.length) log('errors while closing:', errors.join('; '));
  };

  try {
    // ioredis retries forever; fail fast instead when Redis is not there.
    await withTimeout(queue.waitUntilReady(), 15_000, `connecting to Redis at ${baseRedis.host}:${baseRedis.port}`);
    log(`bullmq ${BULLMQ_VERSION}, mode=${mode}, effect=${effect}, jobs=${N}, concurrency=${C}` +
      (mode === 'latency' ? `, rate=${opt.rate}/s` : ''));

    // Fresh queue: removes every job and the id counter (job ids restart at 1).
    await queue.obliterate({ force: true });

    if (effect === 'ledger') {
      pool = new pg.Pool({ connectionString: opt.pgUrl, max: C });
      pool.on('error', (err) => log('idle pg client error:', err?.message ?? err));
      // Ids restart at 1 after obliterate, so rows of an earlier run under the same queue
      // name would collide with this run: remove them first.
      const del = await pool.query(
        'WITH e AS (DELETE FROM echomq.effect WHERE queue = $1 RETURNING 1), ' +
          'l AS (DELETE FROM echomq.demo_ledger WHERE queue = $1 RETURNING 1) ' +
          'SELECT (SELECT count(*) FROM e) AS effects, (SELECT count(*) FROM l) AS ledger',
        [queueName],
      );
      if (Number(del.rows[0].effects) || Number(del.rows[0].ledger)) {
        log(`removed ${del.rows[0].effects} effect and ${del.rows[0].ledger} ledger rows of an earlier run of queue ${queueName}`);
      }
      // Open all C connections up front (like a pre-filled Java pool).
      const clients = await Promise.all(Array.from({ length: C }, () => pool.connect()));
      clients.forEach((c) => c.release());
    }

    // ---- per-job bookkeeping ----
    const completedCount = new Map(); // job id -> number of 'completed' events
    const finallyFailed = new Set();
    const latencyMs = new Map(); // job id -> (commit - enqueue) ms, first commit wins
    let distinctCompleted = 0;
    let finished = 0;
    let startNs = 0n;
    const completionMs = []; // drain: completion time since worker start
    let lastCompletionNs = 0n;
    let resolveDone;
    let rejectDone;
    const done = new Promise((res, rej) => {
      resolveDone = res;
      rejectDone = rej;
    });
    const checkDone = () => {
      if (finished >= N) resolveDone();
    };

    const recordCommit = (job) => {
      if (mode !== 'latency' || latencyMs.has(job.id)) return;
      const enq = job.data.enqNs;
      if (enq !== undefined) latencyMs.set(job.id, nsToMs(nowNs() - BigInt(enq)));
    };

    const processor =
      effect === 'noop'
        ? async (job) => {
            recordCommit(job);
          }
        : async (job) => {
            const client = await pool.connect();
            let broken = null;
            try {
              await client.query('BEGIN');
              const attempt = job.attemptsMade + 1;
              const r = await client.query({ ...SQL_EFFECT, values: [queueName, job.id, job.timestamp, attempt] });
              if (r.rowCount === 1) {
                await client.query({
                  ...SQL_LEDGER,
                  values: [job.data.account, job.data.amountCents, queueName, job.id, attempt],
                });
              }
              await client.query('COMMIT');
              recordCommit(job);
            } catch (err) {
              try {
                await client.query('ROLLBACK');
              } catch (rbErr) {
                broken = rbErr; // do not return a broken connection to the pool
              }
              throw err;
            } finally {
              client.release(broken ?? undefined);
            }
          };

    worker = new Worker(queueName, processor, {
      connection: { ...baseRedis, maxRetriesPerRequest: null },
      concurrency: C,
      autorun: false,
    });
    worker.on('error', (err) => log('worker error:', err?.message ?? err));
    let failedLogged = 0;
    worker.on('failed', (job, err) => {
      if (failedLogged++ < 10) log(`job ${job?.id} failed (attempt ${job?.attemptsMade}):`, err?.message ?? err);
      if (job && job.attemptsMade >= (job.opts.attempts ?? 1) && !finallyFailed.has(job.id) && !completedCount.has(job.id)) {
        finallyFailed.add(job.id);
        finished++;
        checkDone();
      }
    });
    worker.on('completed', (job) => {
      const t = nowNs();
      const n = (completedCount.get(job.id) ?? 0) + 1;
      completedCount.set(job.id, n);
      if (n === 1) {
        distinctCompleted++;
        finished++;
        lastCompletionNs = t;
        if (mode === 'drain') completionMs.push(nsToMs(t - startNs));
        checkDone();
      }
    });
    await withTimeout(worker.waitUntilReady(), 15_000, 'connecting the worker to Redis');

    const timeout = setTimeout(
      () => rejectDone(new Error(`timed out after ${opt.timeoutSeconds}s with ${finished}/${N} jobs finished`)),
      opt.timeoutSeconds * 1000,
    );
    timeout.unref();

    let producerLateMs = 0;
    let valkeyCpuAtStart = 0;
    if (mode === 'drain') {
      // Bulk-load everything first, then start the one worker.
      const loadStart = nowNs();
      for (let from = 0; from < N; from += CHUNK) {
        const batch = [];
        for (let i = from; i < Math.min(N, from + CHUNK); i++) batch.push({ name: 'bench', data: jobData(i) });
        await queue.addBulk(batch);
      }
      const waiting = await queue.getWaitingCount();
      log(`loaded ${N} jobs in ${nsToMs(nowNs() - loadStart).toFixed(0)} ms (waiting=${waiting}); starting worker`);
      valkeyCpuAtStart = await valkeyCpuNow(probe);
      startNs = nowNs();
      worker.run().catch((err) => rejectDone(err));
      await done;
    } else {
      // Latency: worker first, then an open-loop producer at a fixed rate.
      worker.run().catch((err) => rejectDone(err));
      await new Promise((r) => setTimeout(r, 200)); // let the worker block on the queue
      valkeyCpuAtStart = await valkeyCpuNow(probe);
      const adds = [];
      let addError = null;
      startNs = nowNs();
      const intervalNs = 1e9 / opt.rate;
      let i = 0;
      while (i < N) {
        const elapsedNs = Number(nowNs() - startNs);
        // every job whose due time (start + i/R) has passed goes out now, in a burst if we are late
        const dueCount = Math.min(N, Math.floor(elapsedNs / intervalNs) + 1);
        for (; i < dueCount; i++) {
          const late = (elapsedNs - i * intervalNs) / 1e6;
          if (late > producerLateMs) producerLateMs = late;
          const enqNs = nowNs();
          adds.push(
            queue
              .add('bench', i < opt.untimedJobs ? jobData(i) : jobData(i, { enqNs: enqNs.toString(), enqMs: Date.now() }))
              .catch((err) => {
                addError ??= err;
              }),
          );
        }
        if (addError) throw addError;
        if (i >= N) break;
        const waitMs = (i * intervalNs - Number(nowNs() - startNs)) / 1e6;
        if (waitMs > 0) await new Promise((r) => setTimeout(r, waitMs));
      }
      await Promise.all(adds);
      if (addError) throw addError;
      log(`produced ${N} jobs in ${nsToMs(nowNs() - startNs).toFixed(0)} ms (max producer lateness ${producerLateMs.toFixed(1)} ms)`);
      await done;
    }
    clearTimeout(timeout);
    const valkeyCpuSeconds = (await valkeyCpuNow(probe)) - valkeyCpuAtStart;

    const seconds = nsToMs(lastCompletionNs - startNs) / 1000;
    let duplicates;
    let missing;
    if (effect === 'ledger') {
      const r = await pool.query(
        'SELECT count(*) - count(DISTINCT job_id) AS duplicates, count(DISTINCT job_id) AS distinct_jobs ' +
          'FROM echomq.demo_ledger WHERE queue = $1',
        [queueName],
      );
      duplicates = Number(r.rows[0].duplicates);
      missing = N - Number(r.rows[0].distinct_jobs);
    } else {
      duplicates = 0;
      for (const n of completedCount.values()) duplicates += n - 1;
      missing = N - distinctCompleted;
    }
    if (finallyFailed.size) log(`${finallyFailed.size} jobs failed all ${ATTEMPTS} attempts`);

    let sorted;
    if (mode === 'drain') {
      sorted = completionMs.sort((a, b) => a - b);
    } else {
      sorted = [...latencyMs.values()].sort((a, b) => a - b);
    }
    const result = {
      peer: 'bullmq',
      version: BULLMQ_VERSION,
      mode,
      effect,
      jobs: N,
      concurrency: C,
      seconds: Math.round(seconds * 1000) / 1000,
      jobsPerSecond: Math.round((N / seconds) * 10) / 10,
      p50Ms: percentile(sorted, 0.5),
      p99Ms: percentile(sorted, 0.99),
      valkeyCpuSeconds: Math.round(valkeyCpuSeconds * 1e6) / 1e6,
      duplicates,
      missing,
    };
    await closeAll();
    stdoutWrite(JSON.stringify(result) + '\n');
  } catch (err) {
    await closeAll();
    throw err;
  }
}

main().catch((err) => {
  console.error('[bullmq-peer] error:', err?.stack ?? err);
  process.exitCode = 1;
  // If something still holds the event loop open after an error, do not hang the Java bench.
  setTimeout(() => process.exit(1), 5000).unref();
});
