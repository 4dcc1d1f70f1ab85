# The conformance suite as an image:
#   docker build -t customer-service-conformance .
#   docker run --rm -e CONFORMANCE_TOKEN -v "$PWD/reports:/work/reports" customer-service-conformance \
#     --base-url https://gw.example/customer-service --foreign-trade-base-url https://gw.example/foreign-trade-service
FROM node:20-slim
ENV NODE_ENV=production PACT_DO_NOT_TRACK=true CI=true
WORKDIR /opt/conformance
# npm ci runs the prepare script, which builds dist/ from src/: everything it reads is copied first.
COPY package.json package-lock.json tsconfig.json README.md ./
COPY scripts/ scripts/
COPY bin/ bin/
COPY src/ src/
COPY contract/ contract/
COPY suites/ suites/
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force && test -f dist/.built
RUN mkdir -p /work && chown node:node /work
WORKDIR /work
USER node
ENTRYPOINT ["node", "/opt/conformance/bin/conformance.mjs"]
CMD ["--help"]
