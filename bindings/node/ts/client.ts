/** `Client`: a provider chosen as `rectify ask` chooses it, behind the same loop. */

import native = require("./native");
import { translated } from "./errors";
import { type CheckOptions, type FeedbackMode, Thrown, runLoop } from "./loop";
import type { Infer, Schema } from "./schema";

/** The providers rectify speaks to. */
export type ProviderName = "openai" | "anthropic" | "command" | "local";

/** How a `Client` is made (the environment's choice for what is not given). */
export interface ClientOptions {
  /** The provider (else `RECTIFY_PROVIDER`, else OpenAI when `OPENAI_API_KEY` or `OPENAI_BASE_URL` is set, else Anthropic when `ANTHROPIC_API_KEY` is). */
  provider?: ProviderName;
  /** The model (else `RECTIFY_MODEL`, else the provider's default). */
  model?: string;
  /** The base URL of an OpenAI-compatible server. */
  baseUrl?: string;
  /** A command-line agent: the prompt goes to its standard input, its answer is its output. */
  command?: string[];
  /** Calls of the model at most per `extract` (default 3). */
  maxAttempts?: number;
  /** How the feedback is put into the messages (default `prefix`). */
  feedback?: FeedbackMode;
  /** The system prompt of every `extract`. */
  system?: string;
}

/** The options of one `extract`. */
export interface ExtractOptions<S extends Schema> extends CheckOptions<S> {
  /** The system prompt (the client's otherwise). */
  system?: string;
}

/**
 * Asks a model until its answer passes every check. `Client.fromEnv()` takes the provider the
 * environment names, as `rectify ask` does.
 */
export class Client {
  readonly #native: native.NativeClient;
  readonly #options: ClientOptions;

  /** A client (throws a `ConfigError` when no provider is configured or a key is missing). */
  constructor(options: ClientOptions = {}) {
    this.#native = translated(
      () =>
        new native.NativeClient({
          provider: options.provider,
          model: options.model,
          baseUrl: options.baseUrl,
          command: options.command,
        }),
    );
    this.#options = options;
  }

  /** The provider the environment names (see `ClientOptions.provider`). */
  static fromEnv(options: Omit<ClientOptions, "provider" | "command"> = {}): Client {
    return new Client(options);
  }

  /** The provider's kind. */
  get provider(): ProviderName {
    return this.#native.provider as ProviderName;
  }

  /**
   * Asks `prompt` until the answer is a valid `schema` (checked as in `validateWithRetry`) and
   * resolves to it. Rejects with `ExhaustedError`, `ProviderError`, `RefusedError`,
   * `ConfigError`, or the signal's reason.
   */
  async extract<S extends Schema>(
    schema: S,
    prompt: string,
    options: ExtractOptions<S> = {},
  ): Promise<Infer<S>> {
    const thrown = new Thrown();
    return runLoop(
      {
        maxAttempts: this.#options.maxAttempts,
        feedback: this.#options.feedback,
        system: this.#options.system,
        ...options,
        schema,
        prompt,
      },
      thrown,
      (o, v, c) => this.#native.run(o, v, c),
    );
  }

  /** `Client(<provider>)`. */
  toString(): string {
    return `Client(${this.provider})`;
  }
}
