/*
 * The delivery protocol of EchoMQ, for Spin: every interleaving of workers, zombies, crashes,
 * the reaper, the reconciler, an operator and one Valkey failover, over a few jobs.
 *
 * What each step stands for is named beside it: a Lua script of
 * lua/src/main/resources/io/echomq/lua/ (one script = one atomic step, as Valkey runs it), an
 * include it shares, or a method of the engine (ejb/src/main/java/io/echomq/...). The scripts'
 * bookkeeping that no delivery decision reads (histories, lanes and their ring, priorities,
 * caps and rate limits, retention, progress) is left out: every decision the model makes is
 * one a script makes on the fields kept here.
 *
 * Bounds, and why they are enough:
 *  - Jobs: one id (NIDS = 1) and two submissions (NSUB = 2), the second of which can only take
 *    that id again: after a failover lost the first job and the id counter's step, with another
 *    creation time. Why one id is enough: no script decides anything about a job from another
 *    job's fields (the claim's choice among pending jobs is free here, which covers lanes,
 *    priorities and any claim order; a batch of complete-claim, reap or the reconciler is a run
 *    of one-job steps with nothing in between), the effect store is keyed by the job, and every
 *    property is a property of one job. So a run with many jobs, seen from one of them, is a run
 *    of this model: the other jobs' steps change nothing of it, a worker busy with another job
 *    is a worker that does not claim yet, and a tick, a crash or a failover is one here too. A
 *    second job with an id of its own would only multiply the states by its own copy of them.
 *    (-DNIDS=2 and 3 build too, for runs by hand with the other bounds lowered: with all of
 *    them, two ids take far more states than CI can spend.)
 *  - Workers: 2. A job has at most one live lease and a worker runs one job at a time, so the
 *    most that act on one job at once are its holder and a zombie of an earlier lease (or,
 *    after a failover lost a claim, two holders of one token). Every fenced script compares one
 *    lease with the job's fields, so a third worker (a second zombie) is refused exactly as the
 *    first is; on the effect key, PostgreSQL serialises any number of transactions pairwise.
 *  - Time: the server clock is kept as what is left of the lease and of the backoff (a tick
 *    each: LEASE = BACKOFF = 1), which keeps it finite; a tick ages every lease and due time at
 *    once. Workers take no time of their own, so any worker can fall behind the clock at any
 *    step: every worker can become a zombie anywhere.
 *  - Faults and operators are bounded, so that every run ends: MAX_CRASHES worker crashes, one
 *    failover losing up to MAX_LAG scripts, MAX_BEATS heartbeats per lease (the hard timeout
 *    stops the LeaseKeeper), MAX_ATTEMPTS per job (and as many contended refunds, and one
 *    requeue's fresh budget), one cancel, one reschedule. Each may happen at any step. Every
 *    step spends a budget, so the model has no cycle: every run ends in a state where nothing
 *    can move, and the liveness properties are decided there. They are checked with no
 *    fairness assumption at all (pan -a), which is stronger than under weak fairness (pan -a -f,
 *    tried on a smaller configuration, gave the same answer at twelve times the cost).
 *
 * Mutants (-D switches; CI requires Spin to find each one):
 *  NO_TOKEN_CHECK    the fence (includes/fence.lua) does not compare the token
 *  NO_CREATED_CHECK  the fence does not compare the job's creation time
 *  NO_RECONCILER     the Reconciler duty never runs
 */

#ifndef WORKERS
#define WORKERS 2
#endif
#ifndef NIDS
#define NIDS 1
#endif
#ifndef NSUB
#define NSUB 2
#endif
#ifndef MAX_ATTEMPTS
#define MAX_ATTEMPTS 2
#endif
#ifndef MAX_CRASHES
#define MAX_CRASHES 1
#endif
#ifndef MAX_FAILOVERS
#define MAX_FAILOVERS 1     /* 0 or 1 */
#endif
#ifndef MAX_BEATS
#define MAX_BEATS 1
#endif
#define LEASE 1
#define BACKOFF 1

/* The job hash's 'state' field; NONE: Valkey holds no job with this id. */
#define NONE      0
#define PENDING   1
#define DELAYED   2
#define ACTIVE    3
#define COMPLETED 4
#define DEAD      5
#define CANCELLED 6

/* How an attempt failed (io.echomq.queue.FailureKind), retry's ARGV[8]. */
#define RETRYABLE 0
#define PERMANENT 1
#define CONTENDED 2

/* Which kind of step a script is, for the checks that follow every script. */
#define K_OTHER  0
#define K_SETTLE 1   /* fenced by the caller's lease: extend, complete, retry, stop */
#define K_REAP   2

/*
 * One job: the fields of echomq:{q}:job:<id> that scripts decide on, and its membership of each
 * state's structure (the lane's pending set, delayed, active, completed, dead, cancelled).
 * leaseLeft is the active set's score (the lease deadline) minus the server clock, in ticks;
 * dueLeft the delayed set's score (the due time) minus the clock.
 */
typedef Job {
  byte state;
  byte attempts;      /* the fencing token minted by the last claim */
  byte created;       /* created_at: the server clock at enqueue (here: the submission's number) */
  byte maxAtt;        /* max_attempts */
  byte refunds;       /* contended_refunds */
  bit cancelReq;      /* cancel_requested */
  bit leaseLeft;
  bit dueLeft;
  bit inPending;
  bit inDelayed;
  bit inActive;
  bit inCompleted;
  bit inDead;
  bit inCancelled
}

/* Valkey's data: what the primary holds, and what its replica has received so far. */
Job job[NIDS + 1];
byte seq;                 /* echomq:{q}:seq, the id counter */
Job replica[NIDS + 1];
byte replicaSeq;

/*
 * Replication: IN_SYNC until the Failover process lets the replica fall behind (LAGGING), from
 * which moment scripts run on the primary only, at most MAX_LAG of them (lag counts them; a
 * script waits while the lag is full, until the failover or the replica catching up); ticked:
 * the clock moved meanwhile. OVER: no failover (any more) in this run.
 */
#define IN_SYNC 0
#define LAGGING 1
#define OVER    2
#ifndef MAX_LAG
#define MAX_LAG 2
#endif
byte replication;
byte lag;
bit ticked;
#define VALKEY_UP (replication != LAGGING || lag < MAX_LAG)

/*
 * The effect store (echomq.effect), one row per job keyed by (queue, id, creation time). A
 * creation time names one submission in the model, so the rows are indexed by it.
 *   keyHolder: the worker whose open transaction inserted the row (0: none); another
 *              INSERT ... ON CONFLICT DO NOTHING on the key waits for it (READ COMMITTED);
 *   committed: the row is committed;
 *   applied:   how many transactions committed the handler's effect (ghost: what "exactly
 *              once" counts).
 */
byte keyHolder[NSUB + 1];
bit committed[NSUB + 1];
byte applied[NSUB + 1];

/* Environment counters: not Valkey's data, so a failover does not take them back. */
byte submitted;           /* submissions made; the next one is created at submitted + 1 */
byte crashes;

/*
 * The safety properties, one flag each: set by the check that finds the property broken, and
 * asserted false after every script, transaction and failover (verdicts), so a violation is an
 * assertion named by its flag. The checks look at the jobs before and after each step,
 * independently of the scripts' own guards, so a model whose fence is broken is caught.
 */
bit badEffect;     /* an effect committed twice */
bit badLeave;      /* a job left the active set other than by its holder's settlement or the reaper */
bit badCompleted;  /* a job is completed whose effect is not committed */
bit badState;      /* a job in two structures, none, or one that is not its state's */
bit badStale;      /* a settlement with a stale token or another job's lease changed the job */

/* Scratch space of one atomic step: hidden, so not part of the explored state. */
hidden byte i;
hidden byte k;
hidden byte members;
hidden byte wasState[NIDS + 1];
hidden byte wasAttempts[NIDS + 1];
hidden byte wasCreated[NIDS + 1];
hidden byte wasActive[NIDS + 1];
hidden byte wasLeaseLeft[NIDS + 1];
hidden byte wasCancelReq[NIDS + 1];
hidden byte current;
hidden byte fenced;

/* ---------------------------------------------------------------- the checks of every step */

inline verdicts() {
  assert(!badEffect);
  assert(!badLeave);
  assert(!badCompleted);
  assert(!badState);
  assert(!badStale)
}

/* A script starts: it counts against the replication lag, and the checks note the jobs before it. */
inline remember() {
  if
  :: replication == LAGGING -> lag++
  :: else -> skip
  fi;
  rememberJobs()
}

inline rememberJobs() {
  for (i : 1 .. NIDS) {
    wasState[i] = job[i].state;
    wasAttempts[i] = job[i].attempts;
    wasCreated[i] = job[i].created;
    wasActive[i] = job[i].inActive;
    wasLeaseLeft[i] = job[i].leaseLeft;
    wasCancelReq[i] = job[i].cancelReq
  }
}

/* Invariant 1: exactly one structure, and it is the state's. */
inline checkOneState() {
  for (i : 1 .. NIDS) {
    members = job[i].inPending + job[i].inDelayed + job[i].inActive;
    members = members + job[i].inCompleted + job[i].inDead + job[i].inCancelled;
    if
    :: job[i].state == NONE && members != 0 -> badState = 1
    :: job[i].state != NONE && members != 1 -> badState = 1
    :: job[i].state == PENDING && !job[i].inPending -> badState = 1
    :: job[i].state == DELAYED && !job[i].inDelayed -> badState = 1
    :: job[i].state == ACTIVE && !job[i].inActive -> badState = 1
    :: job[i].state == COMPLETED && !job[i].inCompleted -> badState = 1
    :: job[i].state == DEAD && !job[i].inDead -> badState = 1
    :: job[i].state == CANCELLED && !job[i].inCancelled -> badState = 1
    :: else -> skip
    fi
  }
}

/* Invariant 6's other half: completed means its effect is in. */
inline checkCompleted() {
  for (i : 1 .. NIDS) {
    if
    :: job[i].state == COMPLETED && !committed[job[i].created] -> badCompleted = 1
    :: else -> skip
    fi
  }
}

/*
 * After a script run for the lease (lj, ltok, lc), of a kind: a job left the active set only
 * by the reaper (its lease had expired) or by a settlement that presented the lease Valkey
 * granted last (the job's token and creation time before the script); a settlement that
 * changed its job at all presented that lease.
 */
inline checkStep(kind, lj, ltok, lc) {
  current = (lj > 0 && wasState[lj] == ACTIVE && wasAttempts[lj] == ltok && wasCreated[lj] == lc);
  for (k : 1 .. NIDS) {
    if
    :: wasActive[k] && !job[k].inActive ->
       if
       :: kind == K_REAP && !wasLeaseLeft[k] -> skip
       :: kind == K_SETTLE && k == lj && current -> skip
       :: else -> badLeave = 1
       fi
    :: else -> skip
    fi
  }
  if
  :: kind == K_SETTLE && !current &&
     (job[lj].state != wasState[lj] || job[lj].attempts != wasAttempts[lj] || job[lj].inActive != wasActive[lj]
      || job[lj].leaseLeft != wasLeaseLeft[lj] || job[lj].cancelReq != wasCancelReq[lj]) -> badStale = 1
  :: else -> skip
  fi;
  checkOneState();
  checkCompleted();
  verdicts()
}

/* ------------------------------------------------------------------ shared script pieces */

/*
 * includes/fence.lua: only the holder of the current lease may act. Unknown job or another
 * creation time: NOT_FOUND; another token: STALE_TOKEN; not active: NOT_ACTIVE. A rejection
 * changes nothing.
 */
#ifndef NO_CREATED_CHECK
#define CREATED_CHECK(lj, lc) && job[lj].created == lc
#else
#define CREATED_CHECK(lj, lc)
#endif
#ifndef NO_TOKEN_CHECK
#define TOKEN_CHECK(lj, ltok) && job[lj].attempts == ltok
#else
#define TOKEN_CHECK(lj, ltok)
#endif
#define FENCED(lj, ltok, lc) (job[lj].state == ACTIVE CREATED_CHECK(lj, lc) TOKEN_CHECK(lj, ltok))

inline fence(lj, ltok, lc) {
  fenced = FENCED(lj, ltok, lc)
}

/* includes/leave_active.lua with the ZREM from the active set; lease_until deleted. */
inline leaveActive(j) {
  job[j].inActive = 0;
  job[j].leaseLeft = 0
}

/* includes/push_pending.lua: into the lane's pending set, state pending. */
inline pushPending(j) {
  job[j].inPending = 1;
  job[j].state = PENDING
}

inline toDead(j) {
  job[j].inDead = 1;
  job[j].state = DEAD
}

inline toCancelled(j) {
  job[j].inCancelled = 1;
  job[j].state = CANCELLED
}

inline toCompleted(j) {
  job[j].inCompleted = 1;
  job[j].state = COMPLETED
}

inline toDelayed(j) {
  job[j].inDelayed = 1;
  job[j].dueLeft = BACKOFF;
  job[j].state = DELAYED
}

/* includes/unqueue.lua: out of the pending set or the delayed set; false for other states. */
inline unqueue(j, ok) {
  if
  :: job[j].state == PENDING -> job[j].inPending = 0; ok = 1
  :: job[j].state == DELAYED -> job[j].inDelayed = 0; job[j].dueLeft = 0; ok = 1
  :: else -> ok = 0
  fi
}

/* claim_jobs' first part (includes/claim_jobs.lua): due delayed jobs to pending. */
inline promoteDue() {
  for (i : 1 .. NIDS) {
    if
    :: job[i].inDelayed && !job[i].dueLeft -> job[i].inDelayed = 0; pushPending(i)
    :: else -> skip
    fi
  }
}

/*
 * PICK(j, COND): j becomes any job for which COND(j) holds, in one step (blocks while none
 * does): the model's free choice wherever a script or a duty may take any of several jobs.
 */
#if NIDS == 1
#define PICK(j, COND) if :: COND(1) -> j = 1 fi
#define ANY(COND) (COND(1))
#define ALL(COND) (COND(1))
#elif NIDS == 2
#define PICK(j, COND) if :: COND(1) -> j = 1 :: COND(2) -> j = 2 fi
#define ANY(COND) (COND(1) || COND(2))
#define ALL(COND) (COND(1) && COND(2))
#else
#define PICK(j, COND) if :: COND(1) -> j = 1 :: COND(2) -> j = 2 :: COND(3) -> j = 3 fi
#define ANY(COND) (COND(1) || COND(2) || COND(3))
#define ALL(COND) (COND(1) && COND(2) && COND(3))
#endif

/* Pending, or delayed and due: what a claim can lease once it promoted the due jobs. */
#define CLAIMABLE(j) (VALKEY_UP && (job[j].inPending || (job[j].inDelayed && !job[j].dueLeft)))

/*
 * includes/claim_jobs.lua (claim-4.lua, and the claim half of complete-claim-6.lua), for a job
 * lj chosen among the claimable ones (lanes, priorities and claim order are left free): promotes
 * due jobs, then leases lj, minting its token attempts + 1, its lease on the server clock.
 */
inline claimJob(lj, ltok, lc) {
  promoteDue();
  job[lj].inPending = 0;
  job[lj].attempts = job[lj].attempts + 1;
  job[lj].state = ACTIVE;
  job[lj].inActive = 1;
  job[lj].leaseLeft = LEASE;
  ltok = job[lj].attempts;
  lc = job[lj].created
}

/* ------------------------------------------------------------------------------- workers */

/*
 * Every script below is one d_step: Valkey runs a script whole, with nothing in between, and
 * so does the model. A duty's free choice of a job (PICK) comes first, in the same atomic step.
 */

/* Where one worker's runner is with its job (QueueWorker, JobRunner, Completer). */
#define W_IDLE    0
#define W_LEASED  1   /* claimed; the effect transaction has not begun (CrashPoint.LEASE) */
#define W_IN_TX   2   /* the job's effect row inserted in an open transaction, handler running */
#define W_DONE    3   /* effect committed or found committed (CrashPoint.EFFECT / ACK) */
#define W_FAILED  4   /* rolled back: retry */
#define W_STOPPED 5   /* rolled back after a cancel request: stop */

/* COMMIT of the effect transaction: the row and the handler's writes, together. */
inline commitEffect() {
  committed[lc] = 1;
  applied[lc] = applied[lc] + 1;
  if
  :: applied[lc] > 1 -> badEffect = 1
  :: else -> skip
  fi;
  keyHolder[lc] = 0;
  verdicts()
}

/* The runner is done with its job, whatever came of it. */
inline forget() {
  lj = 0; ltok = 0; lc = 0; kind = 0; knowsCancel = 0; beats = 0; phase = W_IDLE
}

/*
 * includes/complete_jobs.lua, one acknowledgement, then claim_jobs' promotion of due jobs:
 * complete-claim-6.lua as the Turn sends it (complete-4.lua is the same complete_jobs). The
 * claim half of complete-claim-6 is the worker's next claim step: splitting the script into its
 * halves only adds interleavings (the one with nothing between them is among them).
 */
inline acknowledge() {
  remember();
  fence(lj, ltok, lc);
  if
  :: fenced -> leaveActive(lj); toCompleted(lj)
  :: else -> skip      /* rejected: whoever holds the job now finds the effect and completes it */
  fi;
  checkStep(K_SETTLE, lj, ltok, lc);
  rememberJobs();
  promoteDue();
  checkStep(K_OTHER, 0, 0, 0)
}

/*
 * retry-6.lua (Completer.retry): fenced; a job whose cancel was requested ends cancelled (new in
 * retry-6); a contended attempt is not counted (max_attempts + 1, at most retry_budget =
 * MAX_ATTEMPTS times); spent attempts or a permanent failure: dead; else delayed by the backoff,
 * or pending when the backoff is 0 (toPending).
 */
inline retry(toPending) {
  remember();
  fence(lj, ltok, lc);
  if
  :: fenced ->
     leaveActive(lj);
     if
     :: job[lj].cancelReq -> toCancelled(lj)
     :: else ->
        if
        :: kind == CONTENDED && job[lj].refunds < MAX_ATTEMPTS ->
           job[lj].maxAtt = job[lj].maxAtt + 1;
           job[lj].refunds = job[lj].refunds + 1
        :: else -> skip
        fi;
        if
        :: kind == PERMANENT || ltok >= job[lj].maxAtt -> toDead(lj)
        :: else ->
           if
           :: toPending -> pushPending(lj)
           :: else -> toDelayed(lj)
           fi
        fi
     fi
  :: else -> skip
  fi;
  checkStep(K_SETTLE, lj, ltok, lc)
}

proctype Worker(byte me) {
  byte lj, ltok, lc;      /* the lease: id, token, creation time (ClaimedJob / Lease) */
  byte phase;
  byte kind;              /* of the attempt's failure */
  bit knowsCancel;        /* JobSignalSlot.cancelRequested(), learnt from extend */
  byte beats;

end_idle:
  do
  :: atomic {
       /* claim-4.lua (the Turn's complete-claim-6.lua leasing work) */
       PICK(lj, CLAIMABLE);
       d_step {
         remember();
         claimJob(lj, ltok, lc);
         checkStep(K_OTHER, 0, 0, 0);
         phase = W_LEASED
       }
     };
     do
     /* LeaseKeeper.extend -> extend-2.lua, at any step until the job is settled; the hard
        timeout bounds the beats. Rejected: the keeper drops the job (leaseLost). */
     :: d_step {
          beats < MAX_BEATS && VALKEY_UP;
          remember();
          fence(lj, ltok, lc);
          if
          :: fenced ->
             job[lj].leaseLeft = LEASE;
             if
             :: job[lj].cancelReq -> knowsCancel = 1
             :: else -> skip
             fi;
             beats++
          :: else -> beats = MAX_BEATS
          fi;
          checkStep(K_SETTLE, lj, ltok, lc)
        }

     /* A crash (SimulatedCrash at a CrashPoint, kill -9) at any step: the runner forgets the
        job, PostgreSQL rolls back its open transaction, the lease is left to expire. A crash
        during the acknowledgement is one before it (the script never ran) or one after it (it
        ran, the reply was lost): a script runs whole or not at all. */
     :: d_step {
          crashes < MAX_CRASHES;
          crashes++;
          if
          :: phase == W_IN_TX -> keyHolder[lc] = 0
          :: else -> skip
          fi;
          forget()
        };
        break

     /* EffectStore.apply: BEGIN; INSERT ... ON CONFLICT DO NOTHING on (queue, id, created). */
     :: d_step {
          /* the row is there: AlreadyApplied, the handler is skipped */
          phase == W_LEASED && committed[lc];
          phase = W_DONE
        }
     :: d_step {
          /* the key is free: the row is inserted, the handler runs in the transaction */
          phase == W_LEASED && !committed[lc] && keyHolder[lc] == 0;
          keyHolder[lc] = me; phase = W_IN_TX
        }
     :: d_step {
          /* another transaction holds the key: the INSERT waits for it (the two steps above,
             once it ends), or lock_timeout runs out first: EffectContendedException */
          phase == W_LEASED && keyHolder[lc] != 0 && keyHolder[lc] != me;
          kind = CONTENDED; phase = W_FAILED
        }

     /* The handler, in the transaction (JobRunner.runOne). */
     :: d_step {
          /* COMMIT: the row and the handler's writes together (EffectOutcome.Applied) */
          phase == W_IN_TX;
          commitEffect();
          phase = W_DONE
        }
     :: d_step {
          /* the handler stopped or threw after a cancel request: rollback, JobOutcome.Stopped */
          phase == W_IN_TX && knowsCancel;
          keyHolder[lc] = 0; phase = W_STOPPED
        }
     :: d_step {
          /* the handler threw: rollback (EffectFailedException), FailureKind.RETRYABLE; or the
             database broke the transaction (a RuntimeException: retryable even after a cancel
             request) */
          phase == W_IN_TX;
          keyHolder[lc] = 0; kind = RETRYABLE; phase = W_FAILED
        }
     :: d_step {
          /* the handler threw a PermanentJobFailure: rollback, FailureKind.PERMANENT */
          phase == W_IN_TX && !knowsCancel;
          keyHolder[lc] = 0; kind = PERMANENT; phase = W_FAILED
        }
     :: d_step {
          /* the COMMIT went through but its reply was lost (the connection broke): the outcome
             is unknown to the runner, which reports a retryable failure (JobRunner.runOne) */
          phase == W_IN_TX;
          commitEffect();
          kind = RETRYABLE; phase = W_FAILED
        }

     /* Completer.settle(Done): the acknowledgement, whatever cancel was requested (invariant 6) */
     :: d_step {
          phase == W_DONE && VALKEY_UP;
          acknowledge();
          forget()
        };
        break

     /* Completer.retry -> retry-6.lua, with a backoff, or with none */
     :: d_step {
          phase == W_FAILED && VALKEY_UP;
          retry(0);
          forget()
        };
        break
     :: d_step {
          phase == W_FAILED && VALKEY_UP;
          retry(1);
          forget()
        };
        break

     /* Completer.stop -> stop-3.lua: fenced; cancelled if its cancel is requested. NOT_REQUESTED
        (the request is gone: a failover lost it) is retried as a failure. */
     :: d_step {
          phase == W_STOPPED && VALKEY_UP && !(FENCED(lj, ltok, lc) && !job[lj].cancelReq);
          remember();
          fence(lj, ltok, lc);
          if
          :: fenced -> leaveActive(lj); toCancelled(lj)
          :: else -> skip
          fi;
          checkStep(K_SETTLE, lj, ltok, lc);
          forget()
        };
        break
     :: d_step {
          phase == W_STOPPED && VALKEY_UP && FENCED(lj, ltok, lc) && !job[lj].cancelReq;
          remember();
          kind = RETRYABLE; knowsCancel = 0; phase = W_FAILED
        }
     od
  od
}

/* ------------------------------------------------------------------- the rest of the world */

/* Clients: enqueue-4.lua / enqueue-batch-4.lua (includes/enqueue_one.lua), pending now or
   delayed. The id is the counter's next value; after a failover it can repeat. */
inline enqueue() {
  remember();
  seq++;
  submitted++;
  job[seq].created = submitted;
  job[seq].attempts = 0;
  job[seq].maxAtt = MAX_ATTEMPTS;
  job[seq].refunds = 0;
  job[seq].cancelReq = 0;
  job[seq].leaseLeft = 0
}

/* Every submission made that can be: NSUB, or fewer when all ids are taken (with NSUB > NIDS,
   the submissions beyond NIDS are the ones that take an id a failover handed back). */
#define SUBMITTED (submitted == NSUB || (seq == NIDS && replication == OVER))

proctype Submitter() {
end_submitter:
  do
  :: d_step {
       submitted < NSUB && seq < NIDS && VALKEY_UP;
       enqueue();
       pushPending(seq);
       checkStep(K_OTHER, 0, 0, 0)
     }
  :: d_step {
       submitted < NSUB && seq < NIDS && VALKEY_UP;
       enqueue();
       toDelayed(seq);
       checkStep(K_OTHER, 0, 0, 0)
     }
  :: submitted == NSUB -> break
  od
}

/* The server clock: every lease and every due time ages by one tick at once (TIME). */
#define TICKING(j) (job[j].leaseLeft || job[j].dueLeft)
proctype Clock() {
end_clock:
  do
  :: d_step {
       ANY(TICKING);
       if
       :: replication == LAGGING -> ticked = 1
       :: else -> skip
       fi;
       for (i : 1 .. NIDS) {
         job[i].leaseLeft = 0;
         job[i].dueLeft = 0
       };
       i = 0
     }
  od
}

#define EXPIRED(j) (VALKEY_UP && job[j].inActive && !job[j].leaseLeft)

/* Reaper -> reap-4.lua, one expired lease per call (any batch is a run of such calls with
   nothing in between). New in reap-4: a job whose cancel was requested ends cancelled. */
proctype Reaper() {
  byte j;
end_reaper:
  do
  :: atomic {
       PICK(j, EXPIRED);
       d_step {
         remember();
         leaveActive(j);
         if
         :: job[j].cancelReq -> toCancelled(j)
         :: !job[j].cancelReq && job[j].attempts >= job[j].maxAtt -> toDead(j)
         :: else -> pushPending(j)
         fi;
         checkStep(K_REAP, 0, 0, 0);
         j = 0
       }
     }
  od
}

#define RECONCILABLE(j) ((job[j].state == DEAD || job[j].state == CANCELLED || job[j].state == DELAYED) \
                         && committed[job[j].created])

/* Reconciler.runOnce: a page of the dead, cancelled and delayed sets (Valkey) and the effect
   rows that stand for them (EffectStore.findFor), then reconcile-6.lua for a job with a row.
   The job may move between the read and the script, which looks again. */
proctype Reconciler() {
  byte j, c;
end_reconciler:
  do
  :: atomic {
       PICK(j, RECONCILABLE);
       c = job[j].created
     };
     d_step {
       /* reconcile-6.lua: the job with this id and creation time, pending, delayed, dead or
          cancelled, is completed; active or completed: refused; another creation time: NOT_FOUND */
       VALKEY_UP;
       remember();
       if
       :: job[j].state != NONE && job[j].created == c ->
          if
          :: job[j].state == DEAD -> job[j].inDead = 0; toCompleted(j)
          :: job[j].state == CANCELLED -> job[j].inCancelled = 0; toCompleted(j)
          :: else ->
             unqueue(j, current);
             if
             :: current -> toCompleted(j)
             :: else -> skip
             fi
          fi
       :: else -> skip
       fi;
       checkStep(K_OTHER, 0, 0, 0);
       j = 0; c = 0
     }
  od
}

/* What each operator action may still be taken on (the flags are the Operator's own). */
#define CANCEL_ON(j) (VALKEY_UP && !cancelled && (job[j].state == PENDING || job[j].state == DELAYED || job[j].state == ACTIVE))
#define REQUEUE_ON(j) (VALKEY_UP && !requeued && job[j].state == DEAD)
#define RESCHEDULE_ON(j) (VALKEY_UP && !rescheduled && job[j].state == DELAYED)

/* An operator, once each, on any job it applies to (elsewhere the script refuses and changes
   nothing): cancel-4.lua, requeue-3.lua, reschedule-3.lua. */
proctype Operator() {
  byte j;
  bit cancelled, requeued, rescheduled;
end_operator:
  do
  :: atomic {
       PICK(j, CANCEL_ON);
       d_step {
         /* cancel-4.lua: pending or delayed -> cancelled; active -> its cancel requested (the
            holder learns it with its next heartbeat) */
         remember();
         if
         :: job[j].state == ACTIVE -> job[j].cancelReq = 1
         :: else -> unqueue(j, current); toCancelled(j)
         fi;
         checkStep(K_OTHER, 0, 0, 0);
         cancelled = 1; j = 0
       }
     }
  :: atomic {
       PICK(j, REQUEUE_ON);
       d_step {
         /* requeue-3.lua: dead -> pending, max_attempts = attempts + retry_budget, the cancel
            request dropped */
         remember();
         job[j].inDead = 0;
         job[j].maxAtt = job[j].attempts + MAX_ATTEMPTS;
         job[j].cancelReq = 0;
         pushPending(j);
         checkStep(K_OTHER, 0, 0, 0);
         requeued = 1; j = 0
       }
     }
  :: atomic {
       PICK(j, RESCHEDULE_ON);
       d_step {
         /* reschedule-3.lua 'now': promoted to pending */
         remember();
         job[j].inDelayed = 0; job[j].dueLeft = 0; pushPending(j);
         checkStep(K_OTHER, 0, 0, 0);
         rescheduled = 1; j = 0
       }
     }
  :: atomic {
       PICK(j, RESCHEDULE_ON);
       d_step {
         /* reschedule-3.lua 'in' / 'at': due later */
         remember();
         job[j].dueLeft = BACKOFF;
         checkStep(K_OTHER, 0, 0, 0);
         rescheduled = 1; j = 0
       }
     }
  od
}

/* Replication catches up: the replica holds what the primary holds. */
inline replicate() {
  for (i : 1 .. NIDS) {
    replica[i].state = job[i].state;
    replica[i].attempts = job[i].attempts;
    replica[i].created = job[i].created;
    replica[i].maxAtt = job[i].maxAtt;
    replica[i].refunds = job[i].refunds;
    replica[i].cancelReq = job[i].cancelReq;
    replica[i].leaseLeft = job[i].leaseLeft;
    replica[i].dueLeft = job[i].dueLeft;
    replica[i].inPending = job[i].inPending;
    replica[i].inDelayed = job[i].inDelayed;
    replica[i].inActive = job[i].inActive;
    replica[i].inCompleted = job[i].inCompleted;
    replica[i].inDead = job[i].inDead;
    replica[i].inCancelled = job[i].inCancelled
  }
}

/* The replica becomes the primary with what it had. */
inline promoteReplica() {
  for (i : 1 .. NIDS) {
    job[i].state = replica[i].state;
    job[i].attempts = replica[i].attempts;
    job[i].created = replica[i].created;
    job[i].maxAtt = replica[i].maxAtt;
    job[i].refunds = replica[i].refunds;
    job[i].cancelReq = replica[i].cancelReq;
    job[i].leaseLeft = replica[i].leaseLeft;
    job[i].dueLeft = replica[i].dueLeft;
    job[i].inPending = replica[i].inPending;
    job[i].inDelayed = replica[i].inDelayed;
    job[i].inActive = replica[i].inActive;
    job[i].inCompleted = replica[i].inCompleted;
    job[i].inDead = replica[i].inDead;
    job[i].inCancelled = replica[i].inCancelled
  }
}

/*
 * A Valkey failover. Replication runs behind the primary from some moment on (any moment: the
 * snapshot below); when the primary dies, the replica is promoted with what it had, and the
 * writes since are lost: an enqueue with the id counter's step, a claim, a settlement, a cancel
 * request. Or the primary never dies in this run. Once is enough: a second failover is one more
 * loss of the same kinds, and every fenced check compares against whatever Valkey holds now.
 */

/* The replica's copy is no longer needed: cleared, it adds no states. */
inline clearReplica() {
  for (i : 1 .. NIDS) {
    replica[i].state = 0; replica[i].attempts = 0; replica[i].created = 0; replica[i].maxAtt = 0;
    replica[i].refunds = 0; replica[i].cancelReq = 0; replica[i].leaseLeft = 0; replica[i].dueLeft = 0;
    replica[i].inPending = 0; replica[i].inDelayed = 0; replica[i].inActive = 0;
    replica[i].inCompleted = 0; replica[i].inDead = 0; replica[i].inCancelled = 0
  };
  replicaSeq = 0; replication = OVER; lag = 0; ticked = 0
}

proctype Failover() {
  if
  :: d_step { replication = OVER }
  :: d_step {
       /* from here on the replica receives nothing */
       replicate();
       replicaSeq = seq;
       replication = LAGGING
     };
     if
     :: d_step {
          /* the primary dies: the replica is promoted with what it had; the clock went on
             (its time is the new primary's TIME), so a tick meanwhile expired its leases and
             made its delayed jobs due */
          promoteReplica();
          seq = replicaSeq;
          if
          :: ticked ->
             for (i : 1 .. NIDS) {
               job[i].leaseLeft = 0;
               job[i].dueLeft = 0
             }
          :: else -> skip
          fi;
          clearReplica();
          checkOneState();
          checkCompleted();
          verdicts()
        }
     :: d_step {
          /* replication catches up: nothing is lost */
          clearReplica()
        }
     fi
  fi
}

init {
  atomic {
    run Submitter();
    for (i : 1 .. WORKERS) {
      run Worker(i)
    };
    run Clock();
    run Reaper();
#ifndef NO_RECONCILER
    run Reconciler();
#endif
#ifndef NO_OPERATOR
    run Operator();
#endif
#if MAX_FAILOVERS > 0
    run Failover()
#else
    replication = OVER
#endif
  }
}

/* ---------------------------------------------------------------------------- properties */

/* Each held job, with the effect row of its id and creation time committed, is completed. */
#define SETTLED_IF_APPLIED(j) (job[j].state == NONE || !committed[job[j].created] || job[j].state == COMPLETED)
/* Each held job is finished. */
#define FINISHED(j) (job[j].state == NONE || job[j].state == COMPLETED || job[j].state == DEAD || job[j].state == CANCELLED)

/*
 * Both liveness properties in one formula, the one the test checks (one search instead of two);
 * each alone, for a run by hand that tells them apart.
 */
ltl jobs_end { <> [] (SUBMITTED && ALL(FINISHED) && ALL(SETTLED_IF_APPLIED)) }
ltl committed_ends_completed { <> [] ALL(SETTLED_IF_APPLIED) }
ltl every_job_ends { <> [] (SUBMITTED && ALL(FINISHED)) }
