import { UserError } from "../core/errors.ts";

/*
 * The workflow run whose artifacts collect adds, as GitHub's REST API lists it (benchmark.yml's
 * collect job writes it with `actions: read`): its jobs with their steps, and its artifacts. An
 * artifact's name is all that ties it to a job, and any job of the run holds the runtime token
 * that uploads artifacts under any name, first come first served. So each artifact is held to the
 * upload step named for it (`Upload <artifact>`, benchmark.yml): that step succeeded, the artifact
 * was created while it ran (one put in its place later was not), and no upload of the call failed
 * (a failed upload is a name another job may have taken first). Each bench job uploads at least one
 * file, so its upload either made its artifact or failed: no artifact is left without the upload
 * that made it. An artifact gone since its upload (deleted, expired) only loses its own results.
 */

export interface WorkflowStep {
  readonly name: string;
  readonly conclusion: string | null;
  readonly started_at: string | null;
  readonly completed_at: string | null;
}

export interface WorkflowJob {
  readonly name: string;
  readonly started_at: string;
  readonly completed_at: string | null;
  readonly steps: readonly WorkflowStep[];
}

export interface WorkflowArtifact {
  readonly name: string;
  readonly created_at: string;
}

/** `{"jobs": [...], "artifacts": [...]}`: what the API's list of a run's jobs and list of its artifacts return. */
export interface WorkflowRun {
  readonly jobs: readonly WorkflowJob[];
  readonly artifacts: readonly WorkflowArtifact[];
}

/** The upload step that made an artifact, and the job it ran in. */
export interface ArtifactUpload {
  readonly artifact: WorkflowArtifact;
  readonly job: WorkflowJob;
  readonly step: WorkflowStep;
}

/** The step of benchmark.yml's bench job that uploads `artifact`: its name says which. */
export const uploadStepName = (artifact: string) => `Upload ${artifact}`;

/** GitHub's timestamps are whole seconds: an artifact made in the step's last second is within it. */
const TIMESTAMP_SLACK_MS = 2_000;

const isText = (value: unknown): value is string => typeof value === "string";
const isTime = (value: unknown) => isText(value) && !Number.isNaN(Date.parse(value));
const isTimeOrNull = (value: unknown) => value === null || isTime(value);
const isStep = (step: unknown) => {
  const s = step as Record<string, unknown> | null;
  return s !== null && typeof s === "object" && isText(s.name) && (s.conclusion === null || isText(s.conclusion)) && isTimeOrNull(s.started_at) && isTimeOrNull(s.completed_at);
};
const isJob = (job: unknown) => {
  const j = job as Record<string, unknown> | null;
  return j !== null && typeof j === "object" && isText(j.name) && isTime(j.started_at) && isTimeOrNull(j.completed_at) && Array.isArray(j.steps) && j.steps.every(isStep);
};
const isArtifact = (artifact: unknown) => {
  const a = artifact as Record<string, unknown> | null;
  return a !== null && typeof a === "object" && isText(a.name) && isTime(a.created_at);
};

/** The run record as read from its file; `where` names the file in the one line bad input gets. */
export function workflowRunOf(value: unknown, where: string): WorkflowRun {
  const record = value as { jobs?: unknown; artifacts?: unknown } | null;
  if (record === null || typeof record !== "object" || !Array.isArray(record.jobs) || !Array.isArray(record.artifacts)) {
    throw new UserError(`${where} is not a workflow run's record: {"jobs": [...], "artifacts": [...]}, as GitHub's API lists them`);
  }
  const job = record.jobs.findIndex((j) => !isJob(j));
  if (job >= 0) throw new UserError(`${where}: /jobs/${job} is not a job with a name, its times and its steps (each a name, a conclusion and times)`);
  const artifact = record.artifacts.findIndex((a) => !isArtifact(a));
  if (artifact >= 0) throw new UserError(`${where}: /artifacts/${artifact} is not an artifact with a name and a creation time`);
  return record as WorkflowRun;
}

const within = (time: string, from: string | null, to: string | null, slackMs: number) =>
  from !== null && to !== null && Date.parse(time) >= Date.parse(from) - slackMs && Date.parse(time) <= Date.parse(to) + slackMs;

/**
 * Binds the call's artifacts (`results-<call>-…`) to the upload steps named for them. Returns the
 * binding, by artifact name, and the run's problems: any of them refuses the whole collect, since a
 * name taken first by another job makes every artifact of the call doubtful.
 */
export function bindArtifacts(run: WorkflowRun, prefix: string): { uploads: Map<string, ArtifactUpload>; problems: string[] } {
  const problems: string[] = [];
  const steps = new Map<string, { job: WorkflowJob; step: WorkflowStep }>();
  for (const job of run.jobs) {
    for (const step of job.steps) {
      if (!step.name.startsWith(uploadStepName(prefix))) continue;
      const artifact = step.name.slice(uploadStepName("").length);
      if (step.conclusion === "success") steps.set(artifact, { job, step });
      else if (step.conclusion !== "skipped" && step.conclusion !== "cancelled") {
        problems.push(`the upload of artifact '${artifact}' in job '${job.name}' ended ${step.conclusion ?? "unfinished"}: another job may have taken its name first, so no artifact of this call is trusted`);
      }
    }
  }
  const uploads = new Map<string, ArtifactUpload>();
  for (const artifact of run.artifacts.filter((a) => a.name.startsWith(prefix))) {
    const upload = steps.get(artifact.name);
    if (!upload) problems.push(`artifact '${artifact.name}' was made by no successful upload step of this call (a job's own upload under another job's name)`);
    else if (!within(artifact.created_at, upload.step.started_at, upload.step.completed_at, TIMESTAMP_SLACK_MS)) {
      problems.push(`artifact '${artifact.name}' was created at ${artifact.created_at}, not while job '${upload.job.name}' uploaded it (${upload.step.started_at} to ${upload.step.completed_at})`);
    } else uploads.set(artifact.name, { artifact, ...upload });
  }
  return { uploads, problems };
}

/** A machine's clock against GitHub's: a run may be dated this far outside its job's times. */
export const CLOCK_SLACK_MS = 10 * 60_000;

/** Why a result dated `startedAt` cannot have been measured by `job`, or nothing. */
export function outsideJob(startedAt: string, job: WorkflowJob, now: Date): string | undefined {
  const end = job.completed_at ?? now.toISOString();
  return within(startedAt, job.started_at, end, CLOCK_SLACK_MS) ? undefined : `claims a run started at ${startedAt}, but job '${job.name}' ran from ${job.started_at} to ${end}`;
}
