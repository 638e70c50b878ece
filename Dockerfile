# The reviewbot GitHub Action / GitLab CI image: Python, Node, Go and Rust toolchains plus the
# tools scripts/install-tools.sh installs (the same script the test setup runs).
FROM python:3.11-slim-bookworm

ENV DEBIAN_FRONTEND=noninteractive \
    PIP_NO_CACHE_DIR=1 \
    REVIEWBOT_SYSTEM_PYTHON=1 \
    REVIEWBOT_EXTRAS=tools \
    REVIEWBOT_TOOLS=/opt/reviewbot/tools \
    GOPATH=/opt/go \
    PATH=/usr/local/go/bin:/opt/go/bin:/usr/local/cargo/bin:$PATH

RUN apt-get update \
 && apt-get install -y --no-install-recommends git ca-certificates curl nodejs npm golang-go \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /opt/reviewbot
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY scripts ./scripts
COPY tools/package.json tools/package-lock.json tools/go-tools.txt ./tools/
RUN scripts/setup

# Repositories are mounted by the runner under another owner.
RUN git config --system --add safe.directory '*'

ENTRYPOINT ["reviewbot"]
CMD ["ci"]
