/**
 * Adaptive trials: a scenario in which two or more subjects of one runtime run side by side (two
 * builds, or a release and its predecessor) takes its profile's `trials` as a minimum (never below
 * the MIN_PAIRS a paired interval needs, so a one-trial profile is not blind to its release), then
 * looks at each pair of subjects and runs another round of trials while a pair is still undecided
 * against PAIRED_MIN_EFFECT, up to MAX_TRIALS_FACTOR times the minimum and within the job's budget
 * of extra trials and extra time. The rule and its false-alarm rate are in src/compare/sequential.ts.
 * Subjects of different runtimes at one app and load point (a single look, no adaptive rounds) get
 * MIN_PAIRS trials at least; a scenario without either runs exactly its profile's trials. The smoke
 * profile judges nothing, so it runs its one trial whatever its subjects.
 */
import { paramsSlug } from "../core/params.ts";
import { splitTrials } from "../compare/ratio.ts";
import { groupBy } from "../compare/series-key.ts";
import { MIN_PAIRS, PAIRED_MIN_EFFECT, adaptivePlan, lookAlpha, pairedEstimate, settled, type SequentialPlan } from "../compare/sequential.ts";
import type { ResultDocument } from "../results/types.ts";
import type { Subject } from "../suites/suite.ts";

/** What the schedule reads of a cell: its subject, whether it is still measured, and its samples by trial. */
export interface ScheduledCell {
  readonly subject: Subject;
  readonly status: string;
  readonly samples: Readonly<Record<string, readonly number[]>>;
  readonly trialSamples: Readonly<Record<string, readonly number[]>>;
}

/** What a whole run may spend on trials beyond each profile's minimum, shared by its scenarios: trials, and seconds. */
export interface TrialBudget {
  trials: number;
  seconds: number;
}

/** No limit but each cell's cap. */
export const UNLIMITED: Readonly<TrialBudget> = { trials: Infinity, seconds: Infinity };

type Stopped = NonNullable<ResultDocument["sequential"]>["stopped"];

/** The app and load point of a cell: cells that share it are compared trial by trial. */
export const cellKey = (cell: Pick<ScheduledCell, "subject">) => `${cell.subject.app ?? "-"} ${paramsSlug(cell.subject.params)}`;

/** Each subject after the first of its runtime, against that first one, within one app and load point. */
function pairsOf<C extends ScheduledCell>(cells: readonly C[]): [C, C][] {
  const groups = groupBy(cells, (cell) => `${cell.subject.runtime.identity.name} ${cellKey(cell)}`);
  return [...groups.values()].flatMap(([base, ...heads]) => heads.map((head): [C, C] => [base!, head]));
}

/** Whether two subjects share an app and load point, so that a comparison pairs their trials. */
const sideBySide = (cells: readonly ScheduledCell[]) => [...groupBy(cells, cellKey).values()].some((group) => group.length > 1);

const trialsOf = (cell: ScheduledCell, metric: string) => splitTrials(cell.samples[metric] ?? [], cell.trialSamples[metric] ?? []);

export class TrialSchedule {
  readonly plan: SequentialPlan | null;
  /** Trials without adaptive rounds: the profile's, or MIN_PAIRS where subjects of different runtimes are compared. */
  readonly fixedTrials: number;
  private readonly pairs: [ScheduledCell, ScheduledCell][];
  private stoppedBy: Stopped | null = null;

  /** `judged`: false for a run whose results no verdict reads (the smoke profile). */
  constructor(
    readonly minTrials: number,
    cells: readonly ScheduledCell[],
    private readonly budget: TrialBudget,
    judged = true,
  ) {
    this.pairs = judged ? pairsOf(cells) : [];
    this.plan = this.pairs.length > 0 ? adaptivePlan(minTrials) : null;
    this.fixedTrials = judged && sideBySide(cells) ? Math.max(minTrials, MIN_PAIRS) : minTrials;
  }

  /**
   * Is any pair still measured and undecided at look `k`? Too few pairs for an interval is
   * undecided; a metric whose trials give no ratio (a zero median) decides nothing, however many.
   */
  private undecided(k: number): boolean {
    const alpha = lookAlpha(this.plan!, k);
    return this.pairs.some(([base, head]) => {
      if (base.status !== "pending" || head.status !== "pending") return false;
      return Object.keys(base.samples).some((metric) => {
        const baseTrials = trialsOf(base, metric);
        const headTrials = trialsOf(head, metric);
        if (Math.min(baseTrials.length, headTrials.length) < MIN_PAIRS) return true;
        const estimate = pairedEstimate(baseTrials, headTrials, alpha);
        return estimate !== null && settled(estimate, PAIRED_MIN_EFFECT) === "undecided";
      });
    });
  }

  /**
   * After every cell has had `done` trials: run one more round of `roundTrials` trials, which took
   * `roundSeconds` each so far? At a look, the rounds up to the next look are taken from the budget
   * at once, so a run always stops at a look and each look is tested once, at its own share of alpha.
   */
  another(done: number, roundTrials: number, roundSeconds = 0): boolean {
    const plan = this.plan;
    if (plan === null) return done < this.fixedTrials;
    const k = plan.looks.indexOf(done);
    if (k < 0) return true;
    if (!this.undecided(k)) return this.stop("decided");
    if (k === plan.looks.length - 1) return this.stop("max trials");
    const rounds = plan.looks[k + 1]! - done;
    const cost = { trials: rounds * roundTrials, seconds: rounds * roundSeconds };
    if (this.budget.trials < cost.trials || this.budget.seconds < cost.seconds) return this.stop("budget");
    this.budget.trials -= cost.trials;
    this.budget.seconds -= cost.seconds;
    return true;
  }

  private stop(why: Stopped): false {
    this.stoppedBy = why;
    return false;
  }

  /** What each result of the scenario records of its adaptive trials; nothing for a scenario without pairs. */
  record(): ResultDocument["sequential"] {
    if (this.plan === null || this.stoppedBy === null) return undefined;
    return { looks: [...this.plan.looks], alpha: this.plan.alpha, stopped: this.stoppedBy };
  }
}
