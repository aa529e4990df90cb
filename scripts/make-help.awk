# `make help`: each target of the Makefile with the first sentence of its `## target: …` comment
# (the comment's lines joined; a sentence ends at ". " or at the end of the comment), wrapped at
# 100 columns.
function flush() {
    if (target == "") return
    sentence = text
    end = index(sentence, ". ")
    if (end > 0) sentence = substr(sentence, 1, end)
    line = sprintf("  %-17s", target)
    words = split(sentence, word, " ")
    for (i = 1; i <= words; i++) {
        if (length(line) + 1 + length(word[i]) > 100) { print line; line = sprintf("%19s", "") }
        line = line " " word[i]
    }
    print line
    target = ""
}
/^## [a-z-]+: / {
    flush()
    target = $2; sub(/:$/, "", target)
    text = substr($0, length(target) + 6)
    next
}
/^## / && target != "" { text = text " " substr($0, 4); next }
{ flush() }
END { flush() }
