// Placeholder: filled by the change that types this document (issue 37).
namespace cudaperf::schema {}
