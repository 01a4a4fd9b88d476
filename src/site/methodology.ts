import { shiftTableRows } from "../compare/noise.ts";
import { MEASUREMENTS } from "../core/measurements.ts";
import { displayPath } from "../core/json-file.ts";
import type { DescribedScenario } from "../scenarios/manifest.ts";
import { BOOTSTRAP_RESAMPLES } from "../stats/summary.ts";
import { html, type SafeHtml } from "./html.ts";
import type { TestbedFacts } from "./load.ts";
import type { CatalogData } from "./model.ts";

const day = (iso: string) => iso.slice(0, 10);
const gib = (bytes: number) => `${(bytes / 2 ** 30).toFixed(1)} GiB`;
const list = (values: Iterable<string>) => [...values].sort().join(", ");

function definitionList(rows: readonly (readonly [string, SafeHtml | string | number | null])[]): SafeHtml {
  return html`<dl class="facts">${rows.filter(([, value]) => value !== null && value !== "").map(([term, value]) => html`<dt>${term}</dt><dd>${value}</dd>`)}</dl>`;
}

/** The settings docs/machine-tuning.md asks for, as the latest run found them. */
function machineCheck(check: NonNullable<TestbedFacts["machine"]>["check"], at: string): SafeHtml {
  const settings = [
    `isolated CPUs ${check.isolated_cpus || "none"}`,
    `nohz_full ${check.nohz_full_cpus || "none"}`,
    `ASLR ${check.aslr ?? "unknown"}`,
    `swap in use ${check.swap_used_bytes === null ? "unknown" : gib(check.swap_used_bytes)}`,
    `load ${check.load_average.join(" ")}`,
    `hardware counters ${check.perf_counters.readable ? "readable" : `unreadable (${check.perf_counters.reason})`}`,
  ];
  const verdict = check.unmet.length === 0 ? "meets docs/machine-tuning.md" : `differs from docs/machine-tuning.md: ${check.unmet.join("; ")}`;
  return html`${settings.join("; ")}. <strong>${verdict}</strong> <span class="muted">(run of ${day(at)})</span>`;
}

function testbedSection(facts: TestbedFacts): SafeHtml {
  const env = facts.environment;
  const tools = [...facts.tools].map(([tool, versions]) => `${tool} ${list(versions)}`);
  return html`<section class="card testbed" id="testbed-${facts.ref.id}">
  <h3>${facts.ref.runner} <span class="badge kind-${facts.ref.kind}">${facts.ref.kind}</span> <span class="badge">${facts.ref.arch}</span></h3>
  ${definitionList([
    ["Pool", facts.ref.pool ? `${facts.ref.pool.name}: this machine runs ${facts.ref.pool.runs.join(", ")}; the rest runs on the pool's other members` : null],
    ["CPU", `${env.cpu_model} (${env.cpus} logical CPUs)`],
    ["Memory", gib(env.memory_bytes)],
    ["Frequency governor", env.governor ?? "not reported"],
    ["SMT", env.smt ?? "not reported"],
    ["Turbo / boost", env.turbo ?? "not reported"],
    ["Loopback MTU", env.loopback_mtu ?? "not reported"],
    ["Operating system", list(facts.oses)],
    ["Kernel", list(facts.kernels)],
    ["Hardware fingerprint", html`<code>${env.fingerprint}</code>`],
    ["Machine check", facts.machine ? machineCheck(facts.machine.check, facts.machine.at) : "not recorded (results older than the check)"],
    ["Tools", tools.join("; ")],
    ["Runtimes measured", list(facts.runtimes)],
    ["Results", `${facts.results} from ${facts.runs.size} runs, ${day(facts.first)} to ${day(facts.last)}`],
    ["Harness commits", facts.harnessCommits.size],
  ])}
</section>`;
}

function scenarioSection({ scenario, metrics, profiles }: DescribedScenario, measured: boolean): SafeHtml {
  const m = scenario.manifest;
  const runtimes = Object.entries(m.runtimes).map(([name, support]) =>
    [name, support.min_version ? `≥ ${support.min_version}` : "", support.flags?.length ? html`<code>${support.flags.join(" ")}</code>` : ""].filter(Boolean),
  );
  // A row per setting, a column per profile: settings grow (warm-up, counts), profiles do not.
  const profileKeys = [...new Set(Object.values(profiles).flatMap((p) => Object.keys(p)))];
  const link = measured ? html` <a href="scenario.html?scenario=${`${scenario.suite}/${scenario.name}`}">trend →</a>` : html` <span class="muted">(no results yet)</span>`;
  return html`<section class="card scenario-manifest" id="scenario-${scenario.suite}-${scenario.name}">
  <h3>${scenario.suite} / ${scenario.name} <span class="badge">v${m.version}</span>${link}</h3>
  <p>${m.description}</p>
  ${definitionList([
    ["Metrics", Object.entries(metrics).map(([name, d]) => `${name} (${d.unit}, ${d.better} is better)`).join("; ")],
    ["Runtimes", html`${runtimes.map((parts, i) => html`${i > 0 ? "; " : ""}${parts.map((part, j) => html`${j > 0 ? " " : ""}${part}`)}`)}`],
    ["Prepared by", m.prepare ? html`<code>${m.prepare.command.join(" ")}</code> (once, until <code>${m.prepare.creates}</code> exists)` : null],
    ["Manifest", html`<code>${displayPath(scenario.manifestPath)}</code>`],
  ])}
  <div class="table-scroll"><table class="data">
    <thead><tr><th scope="col">setting</th>${Object.keys(profiles).map((name) => html`<th scope="col">${name}</th>`)}</tr></thead>
    <tbody>${profileKeys.map((key) => html`<tr><th scope="row">${wrappable(key, "_")}</th>${Object.values(profiles).map((params) => html`<td>${params[key] === undefined ? "" : wrappable(JSON.stringify(params[key]), ",")}</td>`)}</tr>`)}</tbody>
  </table></div>
  <details><summary>${scenario.suite} settings</summary><pre>${JSON.stringify(scenario.suiteConfig, null, 2)}</pre></details>
</section>`;
}

/** A word that may break after each `separator` (`warmup_s`, `[10,50,100]`): many columns still fit the page. */
const wrappable = (text: string, separator: string) => html`${text.split(separator).map((part, i, parts) => (i < parts.length - 1 ? html`${part}${separator}<wbr>` : part))}`;

const percent = (fraction: number) => `${Number((fraction * 100).toPrecision(3)).toLocaleString("en")} %`;

function verdictSection(): SafeHtml {
  const { "false-alarms": falseAlarms, "detection-power": detectionPower } = MEASUREMENTS.entries;
  return html`<section class="prose" id="verdicts">
  <h2>How a change is judged</h2>
  <ul>
    <li>A comparison is the ratio of medians, HEAD / BASE, with a 95 % interval from a bootstrap that resamples trials, then samples within them.</li>
    <li><strong>faster</strong> or <strong>slower</strong> (for a memory or a count, <strong>lower</strong> or <strong>higher</strong>, better or worse) needs the interval to exclude 1 and the change to exceed a minimum effect: the series' own <strong>noise floor</strong> once 6 runs of history measure it, else the <strong>run-to-run shift</strong> of that suite's metric on that kind of machine.</li>
    <li>The trials of one run share the machine's state of that hour, so the interval cannot see how far a whole run moves; the shift below is the largest seen between identical back-to-back runs. A change the interval shows but within the shift is <strong>inconclusive</strong>, and so is a side with fewer than 2 trials.</li>
  </ul>
  <div class="table-scroll"><table class="data">
    <thead><tr><th scope="col">suite</th><th scope="col">metric</th><th scope="col">shift without history: local or hosted machine</th><th scope="col">dedicated machine</th></tr></thead>
    <tbody>${shiftTableRows().map(([suite, metric, local, dedicated]) => html`<tr><td>${suite}</td><td>${metric}</td><td>${local}</td><td>${dedicated}</td></tr>`)}</tbody>
  </table></div>
  <h3>False alarms on real runs</h3>
  <p>The same versions measured twice, back to back, then compared without history: every faster or slower row is a false alarm. Measured on ${falseAlarms.where}, first shared under heavy load (the local and hosted shifts), then quiet (the dedicated shifts).</p>
  <div class="table-scroll"><table class="data">
    <thead><tr><th scope="col">runs</th><th scope="col">when</th><th scope="col">load average</th><th scope="col">held out</th><th scope="col">pairs</th><th scope="col">rows</th><th scope="col">rows with a verdict</th><th scope="col">note</th></tr></thead>
    <tbody>${falseAlarms.rows.map((r) => html`<tr><td>${r.runs}</td><td>${r.when}</td><td>${r.load}</td><td>${r.held_out ? "yes" : "no: these pairs set the shift"}</td><td>${r.pairs}</td><td>${r.rows}</td><td>${r.verdicts} (${percent(r.verdicts / r.rows)})</td><td>${r.note}</td></tr>`)}</tbody>
  </table></div>
  <h3>Detection power of the full profile</h3>
  <p>Measured on ${detectionPower.when}, on ${detectionPower.where}. Simulated series of 12 versions, one full-profile run each, with a step from the 9th version, judged as the regressions feed judges them; noise is the relative standard deviation of a run's level, of each trial within it, and of each sample within a trial. A step is detected when the feed confirms it.</p>
  <div class="table-scroll"><table class="data">
    <thead><tr><th scope="col">suite (full profile)</th><th scope="col">noise</th><th scope="col">smallest step confirmed in ≥ 95 % of series</th><th scope="col">false alarms per judged version</th><th scope="col">series with a false alarm</th></tr></thead>
    <tbody>${detectionPower.rows.map((r) => html`<tr><td>${r.suite} (${r.trials})</td><td>${r.noise}</td><td>${r.smallest_step}</td><td>${r.false_alarms_per_version}</td><td>${r.series_with_false_alarm}</td></tr>`)}</tbody>
  </table></div>
</section>`;
}

/** The methodology page's body: how figures are made, on which machines, from which manifests. */
export function methodologyBody(scenarios: readonly DescribedScenario[], testbeds: readonly TestbedFacts[], catalog: CatalogData): SafeHtml {
  const measured = new Set(catalog.scenarios.map((s) => `${s.suite}/${s.scenario}`));
  const withManifest = new Set(scenarios.map(({ scenario: s }) => `${s.suite}/${s.name}`));
  const orphans = catalog.scenarios.filter((s) => !withManifest.has(`${s.suite}/${s.scenario}`));
  return html`<h1>Methodology</h1>
<p class="lede">Every figure on this site is traceable to what was measured, where, and how. This page is generated from the scenario manifests and from the environment each runner recorded with its results.</p>
<section class="prose">
  <h2>How a figure is made</h2>
  <ul>
    <li>Each scenario is checked on each runtime before it is measured (and, where the suite can, again after), so a figure only exists for a runtime that did the work correctly.</li>
    <li>Runtimes are measured in interleaved trials, their order rotated from one trial to the next, so slow drift of the machine spreads over all of them.</li>
    <li>A figure is the <strong>median</strong> of its samples; its error bar or band is the <strong>95 % bootstrap confidence interval of the median</strong> (${BOOTSTRAP_RESAMPLES} resamples, seeded by the samples, so the same samples always give the same interval).</li>
    <li>Figures are drawn together, and compared, only within one <strong>testbed</strong>: one runner with one hardware fingerprint (CPU model, cores, memory, governor, SMT, turbo). Architectures are shown side by side, never mixed in one line.</li>
    <li>A result that failed or is unsupported is never drawn as a number; it appears as such in tables and tooltips.</li>
    <li>Figures from a developer's machine (<span class="badge kind-local">local</span>) are marked everywhere they appear; only <span class="badge kind-dedicated">dedicated</span> runners are benchmark machines.</li>
    <li>Each point's tooltip gives the command that measures it again: <code>scripts/bench run --suite … --scenario … --runtime NAME@VERSION</code>.</li>
  </ul>
</section>
${verdictSection()}
<h2>Runners</h2>
${testbeds.length === 0 ? html`<p class="empty">No results yet.</p>` : testbeds.map(testbedSection)}
<h2>Scenarios</h2>
${scenarios.map((s) => scenarioSection(s, measured.has(`${s.scenario.suite}/${s.scenario.name}`)))}
${orphans.length > 0 ? html`<h3>Measured scenarios without a manifest in this checkout</h3><ul>${orphans.map((s) => html`<li><a href="scenario.html?scenario=${`${s.suite}/${s.scenario}`}">${s.suite} / ${s.scenario}</a> (version ${s.scenario_version})</li>`)}</ul>` : ""}`;
}
