//! The engines against each other and against the reference count.

use super::*;
use crate::json;

/// tiktoken-rs, the reference the engines are held to (a test dependency only).
fn count_reference(text: &str, encoding: Encoding) -> usize {
    let bpe = match encoding {
        Encoding::O200kBase => tiktoken_rs::o200k_base_singleton(),
        Encoding::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
    };
    bpe.encode_ordinary(text).len()
}

#[test]
fn special_tokens_are_plain_text() {
    // `<|endoftext|>` must not throw nor count as one special token.
    assert!(count("<|endoftext|>", Encoding::O200kBase) > 1);
}

#[test]
fn the_engine_agrees_with_tiktoken_rs_on_ascii() {
    // Texts that stress the pre-tokenizer: whitespace runs, digits, contractions, symbols,
    // line endings, special-token strings, code.
    let samples = [
        "fn main() {\n    let x = 12345678;\r\n\tprintln!(\"{x}\");\n}\n\n\n",
        "It's we'll they're I'M YOU'VE don't   spaces   \n \n  trailing  ",
        "<|endoftext|><|fim_prefix|> a<|endoftext|>b",
        "1234567890 3.14159 -42 0x1F 1e-9 100,000,000",
        "   \n\n\t\t  \r\n   x",
        "!!!???...;;;:::---___===+++***&&&|||",
        "camelCaseWord snake_case_word SCREAMING_CASE kebab-case-word",
        " 1 | import React from \"react\"\n 2 | \n 3 | export const a = () => <div/>;\n",
        "",
        "a",
    ];
    for enc in [Encoding::O200kBase, Encoding::Cl100kBase] {
        for s in samples {
            assert_eq!(count_uncached(s, enc), count_reference(s, enc), "{enc:?}: {s:?}");
        }
    }
    // And a deterministic pseudo-random stream of ASCII.
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let alphabet = b" \t\n\rabcXYZ019'_-.,:;(){}[]<>|!?\"/\\=+*&^%$#@~`";
    for len in [1usize, 7, 64, 500, 5000] {
        for _ in 0..20 {
            let text: String = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    alphabet[(x % alphabet.len() as u64) as usize] as char
                })
                .collect();
            for enc in [Encoding::O200kBase, Encoding::Cl100kBase] {
                assert_eq!(count_uncached(&text, enc), count_reference(&text, enc), "{enc:?}: {text:?}");
            }
        }
    }
}

#[test]
fn mixed_text_is_counted_by_runs_exactly() {
    let samples = [
        "<environment_details>\n# Current Mode\n<slug>code</slug>\n<name>💻 Code</name>\n<model>x</model>\n\n# Files\na.ts\nb.ts\n",
        "déjà vu\nplain ascii line\n/path/after/newline\névénement\n\n\nascii again)\n/x\n",
        "ascii first\n\r\nnon-ascii: ü\r\nmore ascii\r\n  indented ascii\n\tü tab\n",
        "¿qué?\n\n\n\n",
        "x\nü",
        "ü\nx",
        "});\n// comment\nconst café = 1;\n",
    ];
    for enc in [Encoding::O200kBase, Encoding::Cl100kBase] {
        for s in samples {
            assert_eq!(count_uncached(s, enc), count_reference(s, enc), "{enc:?}: {s:?}");
        }
        // A pseudo-random mix of ASCII and non-ASCII lines.
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        let pieces =
            ["ü", "é ", "💻", "日本", "abc", " ", "\n", "\r\n", "/", "//", "x/y", ");", "'s", "123", "\t", "  \n"];
        for _ in 0..300 {
            let text: String = (0..60)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    pieces[(x % pieces.len() as u64) as usize]
                })
                .collect();
            assert_eq!(count_uncached(&text, enc), count_reference(&text, enc), "{enc:?}: {text:?}");
        }
    }
}

#[test]
fn the_engine_agrees_with_tiktoken_rs_on_any_unicode() {
    // Scripts, combining marks, emoji sequences, Unicode spaces and digits, case oddities, private
    // use and noncharacters, contractions with curly quotes: what a pre-tokenizer gets wrong.
    let alphabet = [
        "a",
        "Z",
        "é",
        "É",
        "ß",
        "ǅ",
        "ﬁ",
        "\u{301}",
        "\u{308}",
        "日",
        "本",
        "한",
        "ア",
        "ー",
        "ا",
        "ع",
        "ह",
        "ि",
        "ไ",
        "😀",
        "👍🏽",
        "\u{200d}",
        "\u{fe0f}",
        " ",
        "  ",
        "\t",
        "\n",
        "\r\n",
        "\u{a0}",
        "\u{3000}",
        "\u{2028}",
        "\u{85}",
        "0",
        "7",
        "١",
        "'",
        "'s",
        "'S",
        "'ll",
        "'re",
        "’",
        "\"",
        ".",
        "...",
        "!",
        "-",
        "_",
        "/",
        "\\",
        "(",
        "{",
        "<",
        "#",
        "$",
        "&",
        "*",
        "=",
        "`",
        "|",
        ";",
        "\u{ffff}",
        "\u{fffd}",
        "𝔘",
        "𝟙",
        "Ⅳ",
        "½",
        "²",
        "\u{0}",
        "\u{1b}",
        "İ",
        "ı",
        "ᾈ",
        "Σ",
        "ς",
        "\u{e000}",
        "\u{10ffff}",
    ];
    for seed in 0..3000u64 {
        let text: String = random_from(&alphabet, (seed % 40) as usize, seed + 1).concat();
        for enc in [Encoding::O200kBase, Encoding::Cl100kBase] {
            assert_eq!(count_uncached(&text, enc), count_reference(&text, enc), "{enc:?}: {text:?}");
        }
    }
}

#[test]
fn cached_and_uncached_agree() {
    let text = "fn main() { println!(\"hello\"); }\n".repeat(40);
    let a = count_uncached(&text, Encoding::O200kBase);
    assert_eq!(count(&text, Encoding::O200kBase), a);
    assert_eq!(count(&text, Encoding::O200kBase), a);
    assert_ne!(count(&text, Encoding::Cl100kBase), 0, "cl100k counts through its own cache key");
}

#[test]
fn count_many_matches_single_counts() {
    let texts: Vec<String> = (0..50).map(|i| format!("line {i} ").repeat(i * 7)).collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let many = count_many(&refs, Encoding::O200kBase);
    for (t, n) in refs.iter().zip(many) {
        assert_eq!(n, count_uncached(t, Encoding::O200kBase));
    }
}

#[test]
fn message_parts_follow_the_documented_rules() {
    let m = json!({"role":"assistant","content":[
        {"type":"thinking","thinking":"hmm","signature":"sig"},
        {"type":"text","text":"hello world"},
        {"type":"tool_use","id":"t1","name":"read_file","input":{"path":"a.ts"}},
        {"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAAAAAAA"}},
        {"type":"redacted_thinking","data":"xxxx"},
        {"type":"some_future_block","payload":1}
    ]});
    let expected = count_uncached("hmm", Encoding::O200kBase)
        + count_uncached("hello world", Encoding::O200kBase)
        + count_uncached("read_file{\"path\":\"a.ts\"}", Encoding::O200kBase)
        + 3;
    assert_eq!(count_message(&m, Encoding::O200kBase), expected);
}

/// `n` pseudo-random picks from `alphabet` (xorshift, seeded).
/// `n` picks from `alphabet`, pseudo-random from `seed` (xorshift).
pub(super) fn random_from<T: Copy>(alphabet: &[T], n: usize, seed: u64) -> Vec<T> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            alphabet[(x % alphabet.len() as u64) as usize]
        })
        .collect()
}

fn random_letters(n: usize, seed: u64) -> String {
    random_from(b"abcdefghijklmnopqrstuvwxyz", n, seed).into_iter().map(char::from).collect()
}

/// Texts with one pre-token longer than the threshold, each kind a pattern can make long.
fn long_samples() -> Vec<(&'static str, String)> {
    let big = LONG_RUN + 5_000;
    let upper: String = random_letters(big, 7).to_uppercase();
    let mixed_case: String =
        random_from(b"aBcDeFgHiJ", big, 11).into_iter().map(char::from).collect::<String>() + "'S tail";
    vec![
        ("random letters", random_letters(big, 1)),
        ("random letters, three times as long", random_letters(3 * big, 2)),
        ("one letter repeated", "a".repeat(4 * big)),
        ("capitals", upper),
        ("mixed case with a contraction", mixed_case),
        ("a space then letters", format!(" {}", random_letters(big, 3))),
        ("Cyrillic", random_from(&['б', 'в', 'г', 'д', 'е', 'ж', 'з', 'Ж'], big / 2, 4).into_iter().collect()),
        ("CJK", random_from(&['日', '本', '語', '文', '字', '漢'], big / 3, 5).into_iter().collect()),
        ("letters and combining marks", "e\u{301}o\u{308}".repeat(big / 6)),
        ("mixed scripts", random_from(&["a", "ü", "ж", "日", "é", "Z", "ß"], big, 6).concat()),
        ("digits", random_from(b"0123456789", big, 8).into_iter().map(char::from).collect()),
        ("spaces", " ".repeat(big)),
        ("spaces then a word", " ".repeat(big) + "word"),
        ("blank lines", "\n".repeat(big) + "x"),
        ("spaces and newlines", random_from(&[" ", "\n", "\t", "\r\n"], big, 9).concat() + "end"),
        ("ideographic and ASCII spaces", random_from(&[" ", "\u{3000}", "\u{a0}"], big, 10).concat() + "x"),
        ("punctuation", random_from(b"!?.,;:-_=+*&|<>()[]{}", big, 12).into_iter().map(char::from).collect()),
        ("punctuation ending in newlines and slashes", format!("!{}", "\n/".repeat(big / 2))),
        (
            "a long run inside ordinary lines",
            format!("fn main() {{\n    let x = 1;\n}}\n{}\n// after\nplain words 123\n", random_letters(big, 13)),
        ),
        ("a long run beside non-ASCII lines", format!("déjà vu\n{}\nü end\nascii line\n", random_letters(big, 14))),
    ]
}

#[test]
fn long_pre_tokens_are_counted_exactly() {
    for (what, text) in long_samples() {
        for enc in [Encoding::O200kBase, Encoding::Cl100kBase] {
            let expected = count_reference(&text, enc);
            assert_eq!(count_uncached(&text, enc), expected, "{enc:?}: {what}");
            assert_eq!(count(&text, enc), expected, "{enc:?}: {what}, through the cache");
        }
    }
}

#[test]
fn long_runs_are_detected() {
    for (what, text) in long_samples() {
        if what != "digits" {
            assert!(long_run(text.as_bytes()), "{what}");
        }
    }
    assert!(!long_run(random_from(b"0123456789", 4 * LONG_RUN, 1).as_slice()));
    let prose = "The quick brown fox jumps over the lazy dog.\n".repeat(10_000);
    assert!(!long_run(prose.as_bytes()));
    assert!(!long_run("x".repeat(LONG_RUN - 1).as_bytes()));
    assert!(long_run("x".repeat(LONG_RUN).as_bytes()));
}

#[test]
fn the_linear_engine_agrees_with_tiktoken_rs_on_ordinary_text() {
    // A segment holding a long run is counted whole by the linear engine, so it must be
    // exact on everything else in it too.
    let mut texts: Vec<String> = vec![
        "fn main() {\n    let x = 12345678;\r\n\tprintln!(\"{x}\");\n}\n\n\n".into(),
        "It's we'll they're I'M YOU'VE don't   spaces   \n \n  trailing  ".into(),
        "<|endoftext|><|fim_prefix|> a<|endoftext|>b".into(),
        "1234567890 3.14159 -42 0x1F 1e-9 100,000,000".into(),
        "   \n\n\t\t  \r\n   x".into(),
        "<environment_details>\n# Current Mode\n<name>💻 Code</name>\n\n# Files\na.ts\n".into(),
        "déjà vu\nplain ascii line\n/path/after/newline\névénement\n\n\nascii again)\n/x\n".into(),
        "¿qué?\n\n\n\n".into(),
        "Ünïcödé ÀÉÎ ǅemal ǈubljana ΣΊΣΥΦΟΣ straße 𝔘𝔫𝔦 ١٢٣٤ ⅫⅦ".into(),
        " ".into(),
        "x".into(),
    ];
    let pieces = [
        "ü", "é ", "💻", "日本", "abc", "ABC", " ", "\n", "\r\n", "/", "x/y", ");", "'s", "'LL", "123", "\t", "  \n",
        "\u{3000}", "\u{301}",
    ];
    for seed in 1..200u64 {
        texts.push(random_from(&pieces, 80, seed).concat());
    }
    for enc in [Encoding::O200kBase, Encoding::Cl100kBase] {
        for t in &texts {
            assert_eq!(count_linear(t, enc, Cancel::NEVER), Ok(count_reference(t, enc)), "{enc:?}: {t:?}");
        }
    }
}

#[test]
fn both_engines_know_every_rank_to_the_last() {
    // The highest ranks of each vocabulary, alone and inside a text: an engine built from a table
    // that stops short of them counts such a text as several tokens.
    for enc in [Encoding::O200kBase, Encoding::Cl100kBase] {
        let tokens = vocab::Vocab::of(enc).tokens();
        for (rank, bytes) in tokens.iter().enumerate().skip(tokens.len() - 8) {
            let Ok(token) = std::str::from_utf8(bytes) else { continue };
            for text in [token.to_string(), format!("a{token} b{token}\n")] {
                let reference = count_reference(&text, enc);
                assert_eq!(count_uncached(&text, enc), reference, "{enc:?} rank {rank}: {text:?}");
                assert_eq!(count_linear(&text, enc, Cancel::NEVER), Ok(reference), "{enc:?} rank {rank}: {text:?}");
            }
        }
    }
}

#[test]
fn an_abort_during_a_long_count_answers_promptly() {
    // One pre-token of 24 MB (the linear engine, on a helper thread), and 48 MB of ordinary
    // lines (the fast engine, segment by segment).
    let one_piece = random_letters(24 << 20, 21);
    let lines = "let value = compute(alpha, beta); // a line of ordinary code\n".repeat(800_000);
    for text in [&one_piece, &lines] {
        let enc = Encoding::O200kBase;
        // The engine is built first, so the unaborted time below is the count alone.
        let _ = linear(enc, Cancel::NEVER);
        let t = std::time::Instant::now();
        let full = count_uncached(text, enc);
        let unaborted = t.elapsed();
        assert!(full > 0);

        let flag = AtomicBool::new(false);
        let started = std::time::Instant::now();
        let answer = std::thread::scope(|s| {
            s.spawn(|| {
                std::thread::sleep(unaborted / 10);
                flag.store(true, Ordering::Relaxed);
            });
            count_within(text, enc, Cancel::new(&flag))
        });
        let took = started.elapsed();
        assert_eq!(answer, Err(CondenseError::Aborted));
        assert!(took < unaborted / 2, "aborted after {took:?}, the whole count takes {unaborted:?}");
        // Nothing was cached for the stopped count.
        assert_eq!(lookup(xxh3_128_with_seed(text.as_bytes(), enc.seed())), None);
    }
}

#[test]
fn a_count_that_is_not_stopped_is_the_plain_count() {
    let flag = AtomicBool::new(false);
    let texts: Vec<String> = (0..20).map(|i| random_letters(LONG_RUN / 8 * i, i as u64)).collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let within = count_many_within(&refs, Encoding::Cl100kBase, Cancel::new(&flag));
    assert_eq!(within, Ok(count_many(&refs, Encoding::Cl100kBase)));
    flag.store(true, Ordering::Relaxed);
    assert_eq!(count_many_within(&refs, Encoding::Cl100kBase, Cancel::new(&flag)), Err(CondenseError::Aborted));
    let m = json!([{"role":"user","content":"hello there"}]);
    assert_eq!(
        count_messages_within(m.as_array().map_or(&[][..], Vec::as_slice), Encoding::O200kBase, Cancel::new(&flag)),
        Err(CondenseError::Aborted)
    );
}
