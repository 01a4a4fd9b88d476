import type { ChildProcess } from "node:child_process";
import { request } from "node:http";
import { createServer } from "node:net";
import { TrialFailure } from "../core/errors.ts";
import { spawnTracked, stopGroup, tail } from "../process/children.ts";

export const HOST = "127.0.0.1";

/** A port nothing listens on now: the kernel picks it, we close it and hand it to the server. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, HOST, () => {
      const address = probe.address();
      probe.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

/** Keeps the last `limit` characters of a stream: enough to explain a failure, bounded for a chatty server. */
class OutputTail {
  private text = "";
  constructor(private readonly limit = 64 * 1024) {}
  append(chunk: string): void {
    this.text = (this.text + chunk).slice(-this.limit);
  }
  toString(): string {
    return this.text;
  }
}

export interface ServerLaunch {
  readonly argv: readonly string[];
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly readyTimeoutMs: number;
}

/** A server process started by the harness, in its own process group. */
export class RunningServer {
  private readonly stdout = new OutputTail();
  private readonly stderr = new OutputTail();
  private exit: string | null = null;

  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
  ) {
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => this.stdout.append(chunk));
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => this.stderr.append(chunk));
    child.once("exit", (code, signal) => (this.exit = signal ? `killed by ${signal}` : `exited with code ${code}`));
    child.once("error", (error) => (this.exit = `could not start: ${error.message}`));
  }

  /** Starts the server on a free port (passed as $PORT and $HOST) and polls until it answers HTTP. */
  static async start(launch: ServerLaunch): Promise<RunningServer> {
    const port = await freePort();
    const [command, ...args] = launch.argv;
    const child = spawnTracked(command!, args, {
      cwd: launch.cwd,
      env: { ...launch.env, PORT: String(port), HOST },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const server = new RunningServer(child, port);
    await server.waitUntilReady(launch.readyTimeoutMs);
    return server;
  }

  get url(): string {
    return `http://${HOST}:${this.port}`;
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  /** Why the process is gone, or null while it runs. */
  get exited(): string | null {
    return this.exit;
  }

  /** The server's output so far, for a failed result. */
  output(): { stdout: string; stderr: string } {
    return { stdout: tail(this.stdout.toString(), 40), stderr: tail(this.stderr.toString(), 40) };
  }

  /** Stops the whole process tree (the server leads its own group). */
  async stop(): Promise<void> {
    await stopGroup(this.child);
  }

  private async waitUntilReady(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.exit !== null) throw new ServerFailure(`server ${this.exit} before it answered`, this.output());
      if (await answersHttp(this.port)) {
        if (this.exit === null) return;
        continue; // something else answered on our port: report the exit above
      }
      if (Date.now() > deadline) {
        const output = this.output();
        await this.stop();
        throw new ServerFailure(`server did not answer HTTP on port ${this.port} within ${timeoutMs / 1000} s`, output);
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}

/** Facts about a server's output kept in a failed result: from the failure, or what the server printed so far. */
export function serverFailureDetails(error: unknown, server?: RunningServer): Record<string, unknown> {
  const output = error instanceof ServerFailure ? error.output : server?.output();
  return output ? { server_stdout: output.stdout, server_stderr: output.stderr } : {};
}

/**
 * One trial against a server started for it: launch, measure, and stop the server whatever
 * happens. A server that would not start or stopped answering, or an error of one of the given
 * kinds (the load tool's, the database's), fails the trial with the server's output; a
 * TrialFailure the measuring raised stands as it is.
 */
export async function serverTrial<T>(
  launch: () => Promise<RunningServer>,
  measure: (server: RunningServer) => Promise<T>,
  failures: readonly (abstract new (...args: never[]) => Error)[],
): Promise<T> {
  let server: RunningServer | undefined;
  try {
    server = await launch();
    return await measure(server);
  } catch (error) {
    if (error instanceof ServerFailure || failures.some((kind) => error instanceof kind)) {
      throw new TrialFailure((error as Error).message, serverFailureDetails(error, server));
    }
    throw error;
  } finally {
    await server?.stop();
  }
}

/** A server that would not start or stopped answering, with its output for the result. */
export class ServerFailure extends Error {
  override readonly name = "ServerFailure";
  constructor(
    message: string,
    readonly output: { stdout: string; stderr: string },
  ) {
    super(message);
  }
}

/** Whether anything answers an HTTP request on the port (any status: a 404 still means ready). */
function answersHttp(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = request({ host: HOST, port, path: "/", method: "GET", agent: false, timeout: 1000 }, (response) => {
      response.resume();
      resolve(true);
    });
    probe.once("timeout", () => probe.destroy());
    probe.once("error", () => resolve(false));
    probe.end();
  });
}
