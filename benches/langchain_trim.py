#!/usr/bin/env python3
"""The LangChain side of docs/performance.md: `trim_messages` on a conversation file, timed in-process.

    python3 benches/langchain_trim.py --gen history.json   # a 2,001-message history of random text
    python3 benches/langchain_trim.py FILE [--budget 160000] [--iters 7]

Times, per iteration: loading the JSON file, converting it to LangChain messages
(`convert_to_messages`) and `trim_messages(strategy="last", start_on="human",
include_system=True)` with a token counter equal to Strata's default `CharCounter`
(characters of the text and of each call's name and compact JSON arguments, over 3,
plus 4 a message). Prints the medians. Needs `pip install langchain-core`.
"""
import json
import random
import statistics
import string
import sys
import time


def generate(path, total=2001, seed=7):
    rng = random.Random(seed)
    pool = ["".join(rng.choice(string.ascii_letters + "    ") for _ in range(79)) + "\n" for _ in range(64)]

    def text(n):
        out = []
        while sum(map(len, out)) < n:
            out.append(rng.choice(pool))
        return "".join(out)[:n]

    messages = [{"role": "system", "content": "You are a coding agent. " + text(3000)}]
    calls = 0
    turn = 0
    while len(messages) < total - 1:
        turn += 1
        messages.append({"role": "user", "content": f"[round {turn}] " + text(rng.randint(50, 250))})
        for _ in range(rng.randint(1, 2) if rng.random() < 0.25 else 0):
            step = []
            for _ in range(2 if rng.random() < 0.2 else 1):
                calls += 1
                arguments = json.dumps({"path": f"src/mod_{calls}.rs", "q": text(40).strip()})
                step.append({"id": f"call_{calls:06d}", "type": "function",
                             "function": {"name": rng.choice(["bash", "read_file", "grep"]), "arguments": arguments}})
            messages.append({"role": "assistant", "content": text(rng.randint(0, 200)) or None, "tool_calls": step})
            for call in step:
                messages.append({"role": "tool", "tool_call_id": call["id"], "name": call["function"]["name"],
                                 "content": text(int(2000 + 18000 * rng.random() ** 8))})
        messages.append({"role": "assistant", "content": text(rng.randint(50, 300))})
    messages = messages[:total - 1]
    messages.append({"role": "user", "content": "[now] " + text(120)})
    with open(path, "w") as f:
        json.dump(messages, f)


def main(args):
    if args[:1] == ["--gen"]:
        generate(args[1])
        return
    from langchain_core.messages import AIMessage, BaseMessage, convert_to_messages, trim_messages

    # Annotated with the message class: LangChain then calls it a message at a time.
    def count(m: BaseMessage) -> int:
        text = m.content if isinstance(m.content, str) else json.dumps(m.content, ensure_ascii=False)
        if isinstance(m, AIMessage) and m.tool_calls:
            parts = [text]
            for call in m.tool_calls:
                parts += [call["name"], json.dumps(call["args"], separators=(",", ":"), ensure_ascii=False)]
            text = "\n".join(parts)
        return len(text) // 3 + 4

    path = args[0]
    budget = int(args[args.index("--budget") + 1]) if "--budget" in args else 160000
    iters = int(args[args.index("--iters") + 1]) if "--iters" in args else 7
    trim_messages(convert_to_messages([{"role": "user", "content": "x"}]), max_tokens=9, token_counter=count,
                  strategy="last")
    runs = []
    for _ in range(iters):
        t0 = time.perf_counter()
        with open(path, "rb") as f:
            data = json.load(f)
        t1 = time.perf_counter()
        messages = convert_to_messages(data if isinstance(data, list) else data["messages"])
        t2 = time.perf_counter()
        kept = trim_messages(messages, max_tokens=budget, token_counter=count, strategy="last",
                             start_on="human", include_system=True)
        t3 = time.perf_counter()
        runs.append((t3 - t0, t1 - t0, t2 - t1, t3 - t2, len(messages), len(kept)))
        # Freed out of the timers, as Strata's bench drops each run's result
        # before the next: a run costs what one call costs a program.
        del data, messages, kept
    ms = [statistics.median(r[i] for r in runs) * 1000 for i in range(4)]
    print(f"langchain: {path}: {runs[0][4]} -> {runs[0][5]} messages, median {ms[0]:.2f} ms "
          f"(load {ms[1]:.2f}, convert {ms[2]:.2f}, trim {ms[3]:.2f})")


if __name__ == "__main__":
    main(sys.argv[1:])
