# shellcheck shell=bash
# Sourced, not run, by .ci/run, ./demo, ./bench and ./soak, so that all four choose the JDK the same way:
# $JAVA_HOME if it is a JDK 21 or newer, else the first such JDK under /usr/lib/jvm.
#
#   . .ci/jdk.sh
#   select_jdk demo || exit 3     # sets and exports JAVA_HOME, puts its bin/ first on PATH

# The major version of the JDK at $1 ("21", "25"; "1" for a Java 8), empty if $1 is not a JDK.
java_major() {
  "$1/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p' | cut -d. -f1
}

# Prints the first JDK 21+ among $JAVA_HOME and /usr/lib/jvm/*; returns 1 if there is none.
pick_jdk() {
  local candidates=() c v
  [ -n "${JAVA_HOME:-}" ] && candidates+=("$JAVA_HOME")
  for c in /usr/lib/jvm/*; do [ -e "$c" ] && candidates+=("$c"); done
  for c in "${candidates[@]}"; do
    [ -x "$c/bin/javac" ] || continue
    v=$(java_major "$c")
    if [ -n "$v" ] && [ "$v" -ge 21 ] 2>/dev/null; then echo "$c"; return 0; fi
  done
  return 1
}

# Exports JAVA_HOME (and PATH) for the JDK pick_jdk finds; otherwise says so, naming the script $1, and returns 1.
select_jdk() {
  local jdk
  if ! jdk=$(pick_jdk); then
    echo "$1: no JDK 21 or newer found (checked \$JAVA_HOME and /usr/lib/jvm/*); install one and set JAVA_HOME" >&2
    return 1
  fi
  export JAVA_HOME="$jdk" PATH="$jdk/bin:$PATH"
}
