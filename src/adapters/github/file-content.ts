import { GitHubNotFoundError } from '../../errors/index.js';
import type { GitHubOctokit } from './octokit.js';

type Repository = { owner: string; repo: string };

/**
 * A file's text at a ref through the contents API; null for a path that is
 * missing, or that is a directory, submodule or dangling symlink.
 */
export async function readFileContent(
  octokit: GitHubOctokit,
  repository: Repository,
  path: string,
  ref: string,
): Promise<string | null> {
  const file = await getContent(octokit, repository, path, ref);
  if (file === null || Array.isArray(file) || file.type !== 'file' || !('content' in file)) return null;
  // Over 1 MB the contents API leaves `content` empty and says so in `encoding`.
  if (file.encoding === 'none') return rawContent(octokit, repository, path, ref);
  return Buffer.from(file.content, 'base64').toString('utf8');
}

async function getContent(octokit: GitHubOctokit, repository: Repository, path: string, ref: string) {
  try {
    const { data } = await octokit.rest.repos.getContent({ ...repository, path, ref });
    return data;
  } catch (error) {
    if (error instanceof GitHubNotFoundError) return null;
    throw error;
  }
}

async function rawContent(
  octokit: GitHubOctokit,
  repository: Repository,
  path: string,
  ref: string,
): Promise<string> {
  const response = await octokit.rest.repos.getContent({
    ...repository,
    path,
    ref,
    mediaType: { format: 'raw' },
  });
  // The raw media type makes the body the file itself: text, or bytes when GitHub names no charset.
  const body: unknown = response.data;
  if (typeof body === 'string') return body;
  if (body instanceof ArrayBuffer) return Buffer.from(body).toString('utf8');
  return '';
}
