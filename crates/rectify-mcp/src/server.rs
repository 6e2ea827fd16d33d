//! The server: its tools (`tools/`), resources and prompts, confined to a root.

use std::sync::Arc;

use rmcp::handler::server::tool::ToolRouter;
use rmcp::model::{
    GetPromptRequestParams, GetPromptResponse, Implementation, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, tool_handler};

use crate::{Root, prompts, resources};

/// What the server tells a client about itself when it connects.
const INSTRUCTIONS: &str = "rectify checks, repairs and retries structured output. \
`check` a file you wrote against its schema and rules before you finish; `repair` model \
output; `ask` the configured model for JSON that fits a schema; `run` a workflow, follow it \
with `status`, decide on a paused run with `resume`, read its `report`. Paths are relative to \
the server's root and may not leave it. Diagnostic codes: resource rectify://diagnostics.";

/// rectify's MCP server, confined to a root directory.
#[derive(Clone)]
pub struct Server {
    /// Every path a client names is resolved beneath it.
    pub(crate) root: Arc<Root>,
    /// The agent command `ask` uses (empty: the provider the environment chooses).
    pub(crate) agent: Vec<String>,
    tool_router: ToolRouter<Server>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("root", &self.root)
            .field("agent", &self.agent)
            .finish_non_exhaustive()
    }
}

impl Server {
    /// A server confined to `root`; `ask` uses the agent command `agent` (empty: the provider
    /// the environment chooses, as `rectify ask` does).
    pub fn new(root: Root, agent: Vec<String>) -> Server {
        Server {
            root: Arc::new(root),
            agent,
            tool_router: Server::tool_router(),
        }
    }

    /// The root.
    pub fn root(&self) -> &Root {
        &self.root
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .enable_prompts()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("rectify", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(resources::list(
            &self.root,
        )))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(
            resources::templates(),
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let _busy = crate::trim::busy();
        let root = Arc::clone(&self.root);
        let result = tokio::task::spawn_blocking(move || resources::read(&root, &request.uri))
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))??;
        Ok(result.into())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(ListPromptsResult::with_all_items(prompts::list()))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let _busy = crate::trim::busy();
        let root = Arc::clone(&self.root);
        let result = tokio::task::spawn_blocking(move || prompts::get(&root, &request))
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))??;
        Ok(result.into())
    }
}
