"""Embeds with the `openai` package against `oryx serve`, as any OpenAI client would.

Usage: openai_client.py BASE_URL API_KEY MODEL TEXT...
Prints {"float": [[...], ...], "base64": [[...], ...], "model": ..., "usage": ...}: the same texts
asked once with encoding_format="float" and once with the package's default (base64, decoded by
the package itself).
"""

import json
import sys

import openai


def main() -> None:
    base, key, model, *texts = sys.argv[1:]
    client = openai.OpenAI(base_url=base, api_key=key, max_retries=0, timeout=60)
    as_float = client.embeddings.create(model=model, input=texts, encoding_format="float")
    as_default = client.embeddings.create(model=model, input=texts)
    single = client.embeddings.create(model=model, input=texts[0])
    try:
        client.embeddings.create(model="text-embedding-3-small", input="x")
        unknown = None
    except openai.NotFoundError as e:
        unknown = {"status": e.status_code, "code": e.code}
    print(
        json.dumps(
            {
                "float": [d.embedding for d in as_float.data],
                "base64": [list(map(float, d.embedding)) for d in as_default.data],
                "single": single.data[0].embedding,
                "indexes": [d.index for d in as_float.data],
                "model": as_float.model,
                "usage": as_float.usage.model_dump(),
                "unknown_model": unknown,
            }
        )
    )


if __name__ == "__main__":
    main()
