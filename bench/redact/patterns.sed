# sed -E script: the redaction benchmark's peer, one substitution per pattern, in the order
# tfgate applies its rules (ARN before the account id it contains, access key before a long
# token). GNU sed (\b is a GNU extension). Used as: sed -E -f bench/redact/patterns.sed
#
# ARN (arn:partition:service:region:account:resource)
s/arn:aws[a-z-]*:[a-zA-Z0-9-]*:[a-z0-9-]*:[^:[:space:]"'`\\]*:[^][:space:]"'`\\<>,;)}|]+/<arn>/g
# access key id
s/\b(AKIA|ASIA|AROA|AIDA|ANPA|ANVA|AGPA|AIPA|APKA|ABIA|ACCA|ASCA)[A-Z0-9]{16}\b/<access-key>/g
# email
s/[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,24}/<email>/g
# UUID (request ids)
s/\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b/<uuid>/g
# IPv4 address or CIDR
s/\b((25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\.){3}(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(\/(3[0-2]|[12]?[0-9]))?\b/<ip>/g
# 12-digit account id
s/\b[0-9]{12}\b/<account>/g
