# SPDX-License-Identifier: GPL-2.0
# The external names one C file defines, one a line: its non-static
# functions and variables at file scope. Input: the file with comments
# stripped (cc -fpreprocessed -E -P). It reads the kernel style the tree
# keeps: a definition's header starts in column 0 and its body's "{"
# stands alone in column 0; a variable is a column-0 statement that ends
# in ";" or opens an initializer ("= {").
function name_before(s, stop,    i) {
	i = index(s, stop)
	if (i)
		s = substr(s, 1, i - 1)
	sub(/[[:space:]]+$/, "", s)
	if (match(s, /[A-Za-z_][A-Za-z0-9_]*$/))
		return substr(s, RSTART, RLENGTH)
	return ""
}
# A statement at file scope that is not a definition of ours.
function skip(s) {
	return s ~ /^(static|extern|typedef)[[:space:]]/ || s ~ /^#/
}
BEGIN { head = ""; depth = 0 }
{
	line = $0
	# strings and characters hold no braces
	gsub(/"([^"\\]|\\.)*"/, "\"\"", line)
	gsub(/'([^'\\]|\\.)*'/, "' '", line)
	if (depth > 0) {
		# inside a body or initializer: count braces to its end
		depth += gsub(/[{]/, "{", line) - gsub(/[}]/, "}", line)
		next
	}
	if (line ~ /^[{][[:space:]]*$/) {	# a function body
		if (head != "" && !skip(head) && head ~ /\(/) {
			n = name_before(head, "(")
			if (n != "" && n != "main")
				print n
		}
		head = ""
		depth = 1
		next
	}
	if (line ~ /^[[:space:]]*$/)
		next
	if (head != "")
		head = head " " line
	else if (line ~ /^[A-Za-z_#]/)
		head = line
	else
		next
	if (head ~ /^#/) {
		head = ""
		next
	}
	opens = gsub(/[{]/, "{", head) - gsub(/[}]/, "}", head)
	if (head ~ /;[[:space:]]*$/ || opens > 0) {
		# a declaration, a variable or a type: a variable has no "("
		# before its "=", "[" or ";"
		if (!skip(head) && head !~ /^(struct|union|enum)([[:space:]]+[A-Za-z0-9_]+)?[[:space:]]*[{]/) {
			d = head
			sub(/[=[;{].*/, "", d)
			if (match(d, /\(\*[[:space:]]*[A-Za-z_][A-Za-z0-9_]*\)/))
				print name_before(substr(d, RSTART + 2, RLENGTH - 2), ")")
			else if (d !~ /\(/ && d ~ /[[:space:]]/) {
				n = name_before(d, "\001")
				if (n != "")
					print n
			}
		}
		depth = opens > 0 ? opens : 0
		head = ""
	}
}
