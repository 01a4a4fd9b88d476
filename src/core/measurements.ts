/**
 * The measured figures of this project: docs/measurements.json, the one place they are written.
 * src/compare/noise.ts takes its run-to-run shifts from it, the methodology page its tables,
 * docs/measurements.md and the README's figures table are generated from it (`scripts/docs`),
 * and the benchmarks that measure a figure write its entry (benchmarks/lib/measurements.ts).
 * Imported by the site's browser bundle too (through noise.ts), which keeps only the run-to-run
 * shifts of the file (src/site/bundle.ts): no Node imports here.
 */
import measurements from "../../docs/measurements.json" with { type: "json" };

/** How far one run's median moved from the next on the same binaries, as a change (0.5 = 50 %), for a suite's metrics. */
export interface ShiftTable {
  readonly default: number;
  readonly metrics?: Readonly<Record<string, number>>;
  /** The full profile's shift where it was measured apart (its runs spread more trials over more time); else the same. */
  readonly full?: ShiftTable;
}

/** A cell of an entry's table. */
export type Figure = string | number | boolean | null;

/** One measurement: what was measured, by which command, when, on which machine and under which load. */
export interface MeasurementEntry {
  readonly title: string;
  /** The command that measures it again. */
  readonly benchmark: string;
  /** The date (and time) it was measured, ISO. */
  readonly when: string;
  /** The machine. */
  readonly where: string;
  /** The machine's load average while it was measured ("per row" when each row says its own). */
  readonly load: string;
  /**
   * Its headline figures, shown in the README's table: each a `figure` template whose `{column}`s are
   * filled from row `row` of the table, so no figure is typed twice.
   */
  readonly summary?: readonly {
    readonly measure: string;
    readonly row: number;
    readonly figure: string;
    /** Where this figure's load differs from the entry's. */
    readonly load?: string;
    /** Where this figure was measured at another time than the entry's (a part the last run kept). */
    readonly when?: string;
  }[];
  /** A table: column keys to headings, rows keyed the same. */
  readonly columns?: Readonly<Record<string, string>>;
  readonly rows?: readonly Readonly<Record<string, Figure>>[];
  /** Markdown paragraphs. */
  readonly notes?: readonly string[];
}

/** The run-to-run shift entry: its tables by the machine's state, shared (under heavy load) or quiet. */
export interface ShiftEntry extends MeasurementEntry {
  readonly shifts: { readonly shared: Readonly<Record<string, ShiftTable>>; readonly quiet: Readonly<Record<string, ShiftTable>> };
}

/** One row of the false-alarms entry: pairs of identical runs, compared without history. */
export interface FalseAlarmRow extends Readonly<Record<string, Figure>> {
  readonly runs: string;
  readonly when: string;
  readonly load: string;
  /** Measured after the shift it is judged by was set (else those pairs set it, and have no verdict by construction). */
  readonly held_out: boolean;
  /** Pairs judged: two runs of one build each, or, for twins, one run of the two copies each. */
  readonly pairs: number;
  readonly rows: number;
  /** Rows with a verdict under the old 5 % default, where that was judged. */
  readonly verdicts_old_rule: number | null;
  readonly verdicts: number;
  readonly note: string;
}

/** One row of the detection-power entry: simulated full-profile series of a suite at one noise level. */
export interface DetectionPowerRow extends Readonly<Record<string, Figure>> {
  readonly suite: string;
  /** `paired`: each version beside its predecessor in one run (the release job); `separate`: each in its own run. */
  readonly design: "paired" | "separate";
  readonly trials: string;
  readonly noise: string;
  readonly smallest_step: string;
  readonly false_alarms_per_version: string;
  readonly series_with_false_alarm: string;
}

export interface FalseAlarmsEntry extends MeasurementEntry {
  readonly rows: readonly FalseAlarmRow[];
}

export interface DetectionPowerEntry extends MeasurementEntry {
  readonly rows: readonly DetectionPowerRow[];
}

export interface Measurements {
  readonly entries: {
    readonly "run-to-run-shift": ShiftEntry;
    readonly "false-alarms": FalseAlarmsEntry;
    readonly "detection-power": DetectionPowerEntry;
    readonly [id: string]: MeasurementEntry;
  };
}

/** The path of the file, from the repository's root, for messages and comments. */
export const MEASUREMENTS_FILE = "docs/measurements.json";

export const MEASUREMENTS: Measurements = measurements as Measurements;
