//! Tool parameters inside legacy assistant text: Roo's XML tool call
//! (`<write_to_file>\n<path>a</path>\n<content>\n...\n</content>\n</write_to_file>`) written
//! after the assistant's prose. Finds the call and the byte range of each long parameter value,
//! so truncation can shorten `<content>`, `<diff>`, `<result>`... and keep the call readable.
//! The XML is not well-formed (values are raw text and may contain tags), so a value ends at the
//! last closing tag of its name inside the call. Reads only.

use std::ops::Range;

/// Tools Roo writes as XML in assistant text.
pub const XML_TOOLS: [&str; 22] = [
    "read_file",
    "write_to_file",
    "apply_diff",
    "insert_content",
    "search_and_replace",
    "execute_command",
    "list_files",
    "search_files",
    "list_code_definition_names",
    "codebase_search",
    "use_mcp_tool",
    "access_mcp_resource",
    "update_todo_list",
    "ask_followup_question",
    "attempt_completion",
    "new_task",
    "switch_mode",
    "browser_action",
    "fetch_instructions",
    "run_slash_command",
    "generate_image",
    "simple_read_file",
];

/// Parameters whose values can be long enough to be worth shortening.
const LONG_PARAMS: [&str; 9] =
    ["content", "diff", "result", "todos", "arguments", "question", "message", "command", "follow_up"];

/// A tool call found in assistant text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XmlCall {
    /// One of `XML_TOOLS`.
    pub tool: &'static str,
    /// From the opening tag to the end of the closing tag.
    pub range: Range<usize>,
    /// (parameter name, one of `LONG_PARAMS`; value range) of the long parameters.
    pub params: Vec<(&'static str, Range<usize>)>,
}

/// The first XML tool call in `text`: an opening tag of a known tool at the start of a line,
/// closed later by the same tag.
pub fn find_xml_call(text: &str) -> Option<XmlCall> {
    let mut pos = 0;
    while pos < text.len() {
        let i = pos + text[pos..].find('<')?;
        pos = i + 1;
        if i > 0 && text.as_bytes()[i - 1] != b'\n' {
            continue;
        }
        let Some(close) = text[i..].find('>').map(|j| i + j) else { break };
        let Some(&name) = XML_TOOLS.iter().find(|t| **t == &text[i + 1..close]) else {
            continue;
        };
        let closing = format!("</{name}>");
        let Some(end) = text.rfind(&closing).filter(|e| *e > close) else { continue };
        let inner = close + 1..end;
        let mut params = Vec::new();
        for p in LONG_PARAMS {
            let open = format!("<{p}>");
            let shut = format!("</{p}>");
            let Some(s) = text[inner.clone()].find(&open).map(|j| inner.start + j + open.len()) else { continue };
            let Some(e) = text[s..end].rfind(&shut).map(|j| s + j) else { continue };
            params.push((p, s..e));
        }
        params.sort_by_key(|(_, r)| r.start);
        // Nested parameters (a `<content>` inside a `<diff>`) are covered by the outer one.
        let mut flat: Vec<(&str, Range<usize>)> = Vec::new();
        for (n, r) in params {
            if flat.last().is_none_or(|(_, prev)| r.start >= prev.end) {
                flat.push((n, r));
            }
        }
        // Held as long as the view of the message: no spare capacity.
        flat.shrink_to_fit();
        return Some(XmlCall { tool: name, range: i..end + closing.len(), params: flat });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_call_and_its_long_parameters() {
        let t = "I'll write it.\n\n<write_to_file>\n<path>a.xml</path>\n<content>\n<x>\n</content>\n</x>\n</content>\n<line_count>3</line_count>\n</write_to_file>";
        let c = find_xml_call(t).unwrap();
        assert_eq!(c.tool, "write_to_file");
        assert_eq!(&t[c.range.clone()], &t[16..]);
        assert_eq!(c.params.len(), 1);
        assert_eq!(&t[c.params[0].1.clone()], "\n<x>\n</content>\n</x>\n");
        assert!(find_xml_call("Just prose mentioning <read_file> inline.").is_none());
        let d = find_xml_call("x\n<apply_diff>\n<path>p</path>\n<diff>\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n</diff>\n</apply_diff>").unwrap();
        assert_eq!(d.params.iter().map(|p| p.0).collect::<Vec<_>>(), vec!["diff"]);
    }
}
