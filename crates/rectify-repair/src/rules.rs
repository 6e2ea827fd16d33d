//! The catalogue of repair rules: one stable code, one applicability and one line of summary
//! each. The full description of every rule lives in `docs/rules/<code>.md`.

use rectify_core::Applicability;

macro_rules! rules {
    ($($variant:ident => $code:literal, $safety:ident, $summary:literal;)*) => {
        /// A repair rule. Every [`rectify_core::Repair`] produced by this crate carries the
        /// code of one of these.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum RepairRule {
            $(
                #[doc = $summary]
                $variant,
            )*
        }

        impl RepairRule {
            /// Every rule, in catalogue order.
            pub const ALL: &'static [RepairRule] = &[$(RepairRule::$variant),*];

            /// The stable code, such as `json.trailing_comma`.
            pub fn code(self) -> &'static str {
                match self { $(RepairRule::$variant => $code,)* }
            }

            /// Whether the rule can change the meaning the model intended.
            pub fn applicability(self) -> Applicability {
                match self { $(RepairRule::$variant => Applicability::$safety,)* }
            }

            /// One line saying what the rule does.
            pub fn summary(self) -> &'static str {
                match self { $(RepairRule::$variant => $summary,)* }
            }
        }
    };
}

rules! {
    CodeFence => "extract.code_fence", Safe, "Takes the payload out of a Markdown code fence.";
    Prose => "extract.prose", Safe, "Drops prose before or after the payload.";
    MultipleValues => "extract.multiple_values", Unsafe, "Chooses or combines several top-level values.";
    SchemaChoice => "extract.schema_choice", Safe, "Keeps the only one of several candidates that fits the schema (or all of them, as the array it wants), dropping the others with their text.";
    BareText => "extract.bare_text", Unsafe, "Reads a one-line answer that holds no JSON as a string.";
    EscapedDocument => "extract.escaped_document", Safe, "Unescapes a document whose quotes are all backslash-escaped.";
    DoubledBraces => "json.doubled_braces", Safe, "Makes single the braces of a document that doubles them all, as a prompt template escapes them (`{{\"a\": 1}}`).";
    InvalidUtf8 => "text.invalid_utf8", Unsafe, "Replaces bytes that are not UTF-8 with U+FFFD.";
    TrailingComma => "json.trailing_comma", Safe, "Removes a comma before a closing bracket.";
    ExtraComma => "json.extra_comma", Safe, "Removes a leading or doubled comma.";
    MissingComma => "json.missing_comma", Safe, "Inserts a missing comma between two values or members.";
    MissingColon => "json.missing_colon", Safe, "Inserts a missing colon between a key and its value, or puts one in place of `=` or `=>`.";
    MissingClosingBracket => "json.missing_closing_bracket", Safe, "Closes brackets left open at the end of the text.";
    ExtraClosingBracket => "json.extra_closing_bracket", Safe, "Drops a closing bracket that closes nothing.";
    MismatchedBracket => "json.mismatched_bracket", Safe, "Replaces a closing bracket of the wrong kind.";
    MissingOpeningBrace => "json.missing_opening_brace", Unsafe, "Wraps `\"key\": value` found in an array or at the start of the text into an object.";
    UnquotedKey => "json.unquoted_key", Safe, "Quotes an object key written without quotes.";
    UnquotedValue => "json.unquoted_value", Safe, "Quotes a value written without quotes that ends where its member ends: one word, or several with no comma, colon or line break (`New York`).";
    UnquotedText => "json.unquoted_text", Unsafe, "Quotes unquoted text whose end is a guess as one string: words in a list, or a value holding a comma, colon or line break.";
    SingleQuotes => "json.single_quotes", Safe, "Replaces single quotes around a string with double quotes.";
    CurlyQuotes => "json.curly_quotes", Safe, "Replaces typographic quotes around a string with double quotes.";
    RegexLiteral => "json.regex_literal", Safe, "Reads a JavaScript regular expression literal `/.../` as a string holding its text.";
    TripleQuotes => "json.triple_quotes", Safe, "Reads a Python triple-quoted string `\"\"\"...\"\"\"`, or a Markdown code fence written as a value, as one string.";
    BacktickQuotes => "json.backtick_quotes", Safe, "Replaces backticks around a string with double quotes.";
    UnescapedQuote => "json.unescaped_quote", Unsafe, "Escapes a quote inside a string that did not end it.";
    MissingClosingQuote => "json.missing_closing_quote", Unsafe, "Ends a string that ran into the next member.";
    UnterminatedString => "json.unterminated_string", Safe, "Ends a string cut off by the end of the text.";
    MissingOpeningQuote => "json.missing_opening_quote", Unsafe, "Drops a stray closing quote after an unquoted value or key.";
    DoubledQuote => "json.doubled_quote", Unsafe, "Reads `\"\"x\"\"` as `\"x\"`.";
    ControlCharacter => "json.control_character", Safe, "Escapes a raw control character inside a string.";
    InvalidEscape => "json.invalid_escape", Safe, "Keeps an invalid escape such as `\\s` as literal text; reads `\\x41` and a backslash ending a line as JavaScript does.";
    Comment => "json.comment", Safe, "Removes a `//`, `/* */` or `#` comment.";
    UnicodeWhitespace => "json.unicode_whitespace", Safe, "Removes Unicode white space (no-break, ideographic, zero-width space, BOM) between tokens.";
    PythonLiteral => "json.python_literal", Safe, "Turns `True`, `False` and `None` into `true`, `false` and `null`.";
    KeywordCase => "json.keyword_case", Safe, "Lowercases `TRUE`, `Null` and other miscased keywords.";
    Undefined => "json.undefined", Safe, "Turns JavaScript `undefined` into `null`.";
    NonFiniteNumber => "json.non_finite_number", Unsafe, "Turns `NaN` and `Infinity` into `null`.";
    Tuple => "json.tuple", Safe, "Turns a parenthesised tuple into an array.";
    Ellipsis => "json.ellipsis", Safe, "Drops a `...` placeholder.";
    StringConcatenation => "json.string_concatenation", Safe, "Joins `\"a\" + \"b\"` into one string.";
    NumberFormat => "json.number_format", Safe, "Normalises `.5`, `1.`, `+1`, `1e`, `1_000` and hexadecimal `0xFF`.";
    LeadingZeros => "json.leading_zeros", Safe, "Keeps a number written with leading zeros, such as `007`, as the string `\"007\"`.";
    TruncatedLiteral => "json.truncated_literal", Safe, "Completes `tru`, `fals` or `nul` cut off by the end of the text.";
    CallWrapper => "json.call_wrapper", Safe, "Unwraps `ObjectId(\"...\")`, `NumberLong(...)` and JSONP calls.";
    TruncatedMember => "json.truncated_member", Safe, "Drops a key cut off by the end of the text before its value.";
    MissingValue => "json.missing_value", Unsafe, "Fills a member that has a key but no value with `null`.";
    DuplicateKey => "json.duplicate_key", Unsafe, "Keeps the last of several members with the same key.";
    StrayText => "json.stray_text", Unsafe, "Drops text that is not part of any value.";
    SetToArray => "json.set_to_array", Unsafe, "Turns a set-like `{\"a\", \"b\"}` into an array.";
    MergedObject => "json.merged_object", Unsafe, "Merges members written after an object was closed too early.";
    ArrayContinuation => "json.array_continuation", Unsafe, "Appends an array written where a key was expected to the previous array.";
    NumberFromString => "coerce.string_to_number", Safe, "Turns a numeric string into the number the schema wants.";
    BooleanFromString => "coerce.string_to_boolean", Safe, "Turns `\"true\"`/`\"false\"` into the boolean the schema wants.";
    BooleanFromWord => "coerce.loose_boolean", Unsafe, "Turns `\"yes\"`, `\"no\"`, `1` or `0` into the boolean the schema wants.";
    StringFromScalar => "coerce.scalar_to_string", Safe, "Turns a number or a boolean into the string the schema wants.";
    JsonAsString => "coerce.json_as_string", Unsafe, "Writes a nested object or array as the JSON text of the string the schema wants.";
    StringToNull => "coerce.string_to_null", Unsafe, "Reads `\"\"`, `\"N/A\"`, `\"none\"` or `\"unknown\"` as the `null` the schema allows where the string does not fit.";
    RoundToInteger => "coerce.round_to_integer", Unsafe, "Rounds a number with a fraction (`2.5`, `\"2.5\"`) to the integer the schema wants.";
    WrapArray => "coerce.wrap_array", Safe, "Wraps a single value into the one-element array the schema wants.";
    UnwrapArray => "coerce.unwrap_array", Safe, "Takes the only element of an array where the schema wants a scalar, an enum value or an object.";
    WrapObject => "coerce.wrap_object", Unsafe, "Puts a value given alone into the one property of the object the schema wants (`42` for `{\"value\": 42}`).";
    UnwrapObject => "coerce.unwrap_object", Unsafe, "Takes the object inside a one-member wrapper (`{\"result\": {...}}`) where the schema wants the inner object's properties, or the value inside one (`{\"answer\": \"TWO\"}`, `{\"tags\": [...]}`) where it wants a scalar or an array.";
    EnumMatch => "coerce.enum_match", Safe, "Matches an enum value that differs in case, spacing or accents.";
    KeyMatch => "coerce.key_match", Safe, "Renames a key that differs from the schema's in case or `snake_case`/`camelCase`.";
    KeyTypo => "coerce.key_typo", Unsafe, "Renames a key misspelled by a letter or two (`taget`) to the one required property the object left out that it is close to.";
    EmbeddedJson => "coerce.embedded_json", Safe, "Parses a string holding JSON where the schema wants an object or array.";
    TextAsString => "coerce.text_as_string", Safe, "Takes the whole text, trimmed, as the string the schema wants.";
    TextAsNumber => "coerce.text_as_number", Unsafe, "Reads the only number (or fraction, `1/5`) in the text or in a string value (currency sign, thousands separators, unit dropped) as the number the schema wants.";
    TextAsList => "coerce.text_as_list", Safe, "Reads a Markdown list (`- item`, `1. item`) as the array of scalars the schema wants, dropping the lines around it.";
    CommaList => "coerce.comma_list", Unsafe, "Reads one line of comma-separated items (`foo, bar`) as the array of scalars the schema wants.";
    TextAsEnum => "coerce.text_as_enum", Unsafe, "Reads the enum value the text names (`ONE: the first option`, `The answer is TWO`).";
    SchemaDefault => "coerce.schema_default", Unsafe, "Fills a missing value with the schema's default or type's empty value.";
    MissingAsEmpty => "coerce.missing_as_empty", Unsafe, "Adds a required property the object left out as empty: `null` where its schema allows `null`, else `[]` where it wants an array.";
    DropAdditional => "coerce.drop_additional", Unsafe, "Drops a property the schema forbids.";
    DropNull => "coerce.drop_null", Safe, "Drops an optional property whose `null` the schema does not allow.";
    YamlTabs => "yaml.tabs", Safe, "Replaces tabs used for indentation with spaces.";
    YamlColonValue => "yaml.colon_in_value", Safe, "Quotes a plain value that contains `: `.";
    MarkdownKeys => "yaml.markdown_keys", Safe, "Takes the Markdown emphasis (`**Name:** Ada`) and, for an object, the list bullets off the keys of YAML lines read for a schema.";
}

impl RepairRule {
    /// The rule with this code, if any.
    pub fn from_code(code: &str) -> Option<RepairRule> {
        RepairRule::ALL.iter().copied().find(|r| r.code() == code)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_round_trip() {
        let mut seen = std::collections::HashSet::new();
        for rule in RepairRule::ALL {
            assert!(seen.insert(rule.code()), "duplicate {}", rule.code());
            assert_eq!(RepairRule::from_code(rule.code()), Some(*rule));
        }
        assert_eq!(RepairRule::from_code("nope"), None);
    }
}
