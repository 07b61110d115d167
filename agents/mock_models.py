"""Local stand-ins for the model APIs the agents call, playing a script.

Each server answers the agent's model requests from a list of turns (a tool
call, or text), records every request it was sent (so a test can see what
the model was shown: tool results, errors, injected context), and answers
requests that are not the agent's main loop (titles, summaries: no tools
offered) with a short text, so they take no turn of the script.

    Anthropic Messages API (Claude Code): POST /v1/messages, streamed as
    server-sent events.
    OpenAI Responses API (Codex): POST /v1/responses, streamed as
    server-sent events; Chat Completions (Cline's OpenAI-compatible
    provider): POST /v1/chat/completions, streamed or whole.
    Gemini API (gemini-cli, `GOOGLE_GEMINI_BASE_URL`): POST
    /v1beta/models/M:streamGenerateContent?alt=sse, streamed as server-sent
    events, and :generateContent for its model router.
"""

import http.server
import json
import threading


class Script:
    """The turns to play and the requests seen."""

    def __init__(self, turns):
        self.turns = list(turns)
        self.requests = []
        self.lock = threading.Lock()

    def next_turn(self, request):
        with self.lock:
            self.requests.append(request)
            if not self.turns:
                return {"text": "(the script has no more turns)"}
            return self.turns.pop(0)

    def main_requests(self):
        return [r for r in self.requests if r.get("tools")]


def sse(event, data):
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


def anthropic_stream(turn, n):
    """One assistant message as the Messages API streams it."""
    out = [sse("message_start", {"type": "message_start", "message": {
        "id": f"msg_{n}", "type": "message", "role": "assistant", "model": "claude-mock",
        "content": [], "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1}}})]
    if "tool" in turn:
        block = {"type": "tool_use", "id": f"toolu_{n}", "name": turn["tool"], "input": {}}
        out.append(sse("content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}))
        out.append(sse("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {
            "type": "input_json_delta", "partial_json": json.dumps(turn["input"])}}))
        stop = "tool_use"
    else:
        out.append(sse("content_block_start", {"type": "content_block_start", "index": 0,
                                               "content_block": {"type": "text", "text": ""}}))
        out.append(sse("content_block_delta", {"type": "content_block_delta", "index": 0,
                                               "delta": {"type": "text_delta", "text": turn["text"]}}))
        stop = "end_turn"
    out.append(sse("content_block_stop", {"type": "content_block_stop", "index": 0}))
    out.append(sse("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                     "usage": {"output_tokens": 5}}))
    out.append(sse("message_stop", {"type": "message_stop"}))
    return b"".join(out)


def serve(script, kind):
    """Starts a server for `script` on 127.0.0.1; returns (server, base_url)."""

    counter = [0]

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def do_POST(self):
            length = int(self.headers.get("content-length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            counter[0] += 1
            if kind == "openai" and self.path.endswith("/responses"):
                turn = script.next_turn(body) if body.get("tools") else {"text": "ok"}
                if not body.get("tools"):
                    script.requests.append(body)
                return self.reply(openai_stream(turn, counter[0]), "text/event-stream")
            if kind == "openai" and self.path.endswith("/chat/completions"):
                turn = script.next_turn(body) if body.get("tools") else {"text": "ok"}
                if not body.get("tools"):
                    script.requests.append(body)
                if body.get("stream"):
                    return self.reply(chat_stream(turn, counter[0]), "text/event-stream")
                return self.reply_json(chat_message(turn, counter[0]))
            if kind == "gemini" and ":streamGenerateContent" in self.path:
                turn = script.next_turn(body) if body.get("tools") else {"text": "ok"}
                if not body.get("tools"):
                    script.requests.append(body)
                return self.reply(gemini_stream(turn), "text/event-stream")
            if kind == "gemini" and ":generateContent" in self.path:
                # The model router (which model for this prompt) and side
                # requests (titles, summaries): never a turn of the script.
                script.requests.append(body)
                return self.reply_json(gemini_response({"text": GEMINI_ROUTER}))
            if kind == "gemini" and ":countTokens" in self.path:
                return self.reply_json({"totalTokens": 10})
            if kind == "anthropic" and self.path.startswith("/v1/messages/count_tokens"):
                return self.reply_json({"input_tokens": 10})
            if kind == "anthropic" and self.path.startswith("/v1/messages"):
                turn = script.next_turn(body) if body.get("tools") else {"text": "ok"}
                if not body.get("tools"):
                    script.requests.append(body)
                if body.get("stream"):
                    return self.reply(anthropic_stream(turn, counter[0]), "text/event-stream")
                return self.reply_json(anthropic_message(turn, counter[0]))
            self.send_response(404)
            self.send_header("content-length", "0")
            self.end_headers()

        def do_GET(self):
            self.reply_json({})

        def reply_json(self, value):
            self.reply(json.dumps(value).encode(), "application/json")

        def reply(self, data, ctype):
            self.send_response(200)
            self.send_header("content-type", ctype)
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def anthropic_message(turn, n):
    if "tool" in turn:
        content = [{"type": "tool_use", "id": f"toolu_{n}", "name": turn["tool"], "input": turn["input"]}]
        stop = "tool_use"
    else:
        content = [{"type": "text", "text": turn["text"]}]
        stop = "end_turn"
    return {"id": f"msg_{n}", "type": "message", "role": "assistant", "model": "claude-mock", "content": content,
            "stop_reason": stop, "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 5}}


def openai_stream(turn, n):
    """One model response as the Responses API streams it."""
    rid = f"resp_{n}"
    if "freeform" in turn:
        # A freeform tool (Codex's apply_patch): its input is the raw text.
        item = {"type": "custom_tool_call", "id": f"ctc_{n}", "call_id": f"call_{n}", "name": turn["tool"],
                "input": turn["freeform"], "status": "completed"}
    elif "tool" in turn:
        item = {"type": "function_call", "id": f"fc_{n}", "call_id": f"call_{n}", "name": turn["tool"],
                "arguments": json.dumps(turn["input"]), "status": "completed"}
    else:
        item = {"type": "message", "id": f"msg_{n}", "role": "assistant", "status": "completed",
                "content": [{"type": "output_text", "text": turn["text"], "annotations": []}]}
    usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 5,
             "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 15}
    base = {"id": rid, "object": "response", "created_at": 0, "model": "gpt-mock", "status": "in_progress",
            "output": []}
    out = [sse("response.created", {"type": "response.created", "response": base})]
    out.append(sse("response.output_item.added", {"type": "response.output_item.added", "output_index": 0, "item": item}))
    if item["type"] == "message":
        # Clients that build the text from its deltas (Qwen Code) get them.
        text = turn["text"]
        part = {"item_id": item["id"], "output_index": 0, "content_index": 0}
        out.append(sse("response.output_text.delta", dict(part, type="response.output_text.delta", delta=text)))
        out.append(sse("response.output_text.done", dict(part, type="response.output_text.done", text=text)))
    out.append(sse("response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": item}))
    done = dict(base, status="completed", output=[item], usage=usage)
    out.append(sse("response.completed", {"type": "response.completed", "response": done}))
    return b"".join(out)


def chat_message(turn, n):
    """One model answer as Chat Completions gives it whole."""
    if "tool" in turn:
        msg = {"role": "assistant", "content": None, "tool_calls": [{
            "id": f"call_{n}", "type": "function",
            "function": {"name": turn["tool"], "arguments": json.dumps(turn["input"])}}]}
        finish = "tool_calls"
    else:
        msg = {"role": "assistant", "content": turn["text"]}
        finish = "stop"
    return {"id": f"chatcmpl_{n}", "object": "chat.completion", "created": 0, "model": "gpt-mock",
            "choices": [{"index": 0, "message": msg, "finish_reason": finish}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}


def chat_stream(turn, n):
    """One model answer as Chat Completions streams it (`data:` chunks)."""
    base = {"id": f"chatcmpl_{n}", "object": "chat.completion.chunk", "created": 0, "model": "gpt-mock"}
    if "tool" in turn:
        delta = {"role": "assistant", "tool_calls": [{"index": 0, "id": f"call_{n}", "type": "function",
                                                      "function": {"name": turn["tool"],
                                                                   "arguments": json.dumps(turn["input"])}}]}
        finish = "tool_calls"
    else:
        delta = {"role": "assistant", "content": turn["text"]}
        finish = "stop"
    chunks = [dict(base, choices=[{"index": 0, "delta": delta, "finish_reason": None}]),
              dict(base, choices=[{"index": 0, "delta": {}, "finish_reason": finish}],
                   usage={"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15})]
    return b"".join(f"data: {json.dumps(c)}\n\n".encode() for c in chunks) + b"data: [DONE]\n\n"


# What gemini-cli's model router expects back: a JSON verdict.
GEMINI_ROUTER = json.dumps({"reasoning": "simple", "model_choice": "flash", "complexity_reasoning": "simple",
                            "complexity_score": 10})


def gemini_response(turn):
    if "tool" in turn:
        part = {"functionCall": {"name": turn["tool"], "args": turn["input"]}}
    else:
        part = {"text": turn["text"]}
    return {"candidates": [{"content": {"parts": [part], "role": "model"}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}}


def gemini_stream(turn):
    """One model response as the Gemini API streams it (`alt=sse`)."""
    return f"data: {json.dumps(gemini_response(turn))}\r\n\r\n".encode()
