// The API's documentation at /docs: Swagger UI from the package's own files (no CDN), on /openapi.json.
window.addEventListener("load", () => {
  window.ui = SwaggerUIBundle({ url: "/openapi.json", dom_id: "#swagger-ui" });
});
