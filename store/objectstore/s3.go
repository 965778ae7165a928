package objectstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"

	"tracker/internal/disposition"
)

// S3Config is an S3-compatible service.
type S3Config struct {
	Endpoint  string // the URL the service reaches, e.g. http://minio:9000; "" is AWS
	Public    string // the URL clients reach, when it differs (presigned URLs carry it); "" is Endpoint
	Bucket    string
	Region    string
	AccessKey string
	SecretKey string
	PathStyle bool // bucket in the path (MinIO) rather than in the host name
}

// S3 is the S3-compatible backend.
type S3 struct {
	cfg     S3Config
	client  *s3.Client
	presign *s3.PresignClient
}

// NewS3 builds the backend; it does not talk to the service.
func NewS3(cfg S3Config) (*S3, error) {
	if cfg.Bucket == "" {
		return nil, errors.New("object store: bucket is required")
	}
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	base := aws.Config{
		Region:      cfg.Region,
		Credentials: credentials.NewStaticCredentialsProvider(cfg.AccessKey, cfg.SecretKey, ""),
		// Checksums only where the API requires them: a presigned PUT must
		// not demand a checksum header the client does not know to send.
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
	}
	opts := func(endpoint string) func(o *s3.Options) {
		return func(o *s3.Options) {
			if endpoint != "" {
				o.BaseEndpoint = aws.String(endpoint)
			}
			o.UsePathStyle = cfg.PathStyle
		}
	}
	public := cfg.Public
	if public == "" {
		public = cfg.Endpoint
	}
	return &S3{
		cfg:     cfg,
		client:  s3.NewFromConfig(base, opts(cfg.Endpoint)),
		presign: s3.NewPresignClient(s3.NewFromConfig(base, opts(public))),
	}, nil
}

// Kind is "s3".
func (s *S3) Kind() string { return "s3" }

// PresignPut signs content-type, content-length and If-None-Match: * into
// the URL (SigV4 signed headers), so the service rejects a PUT of another
// type or size, one without the condition, and (conditional writes: S3,
// MinIO) any PUT once the key holds an object, with 412.
func (s *S3) PresignPut(ctx context.Context, key, contentType string, size int64, ttl time.Duration) (Presigned, error) {
	req, err := s.presign.PresignPutObject(ctx, &s3.PutObjectInput{
		Bucket: aws.String(s.cfg.Bucket), Key: aws.String(key),
		ContentType: aws.String(contentType), ContentLength: aws.Int64(size), IfNoneMatch: aws.String("*"),
	}, s3.WithPresignExpires(ttl))
	if err != nil {
		return Presigned{}, fmt.Errorf("presign put: %w", err)
	}
	return Presigned{URL: req.URL, Method: req.Method, Headers: map[string]string{
		"Content-Type": contentType, "Content-Length": strconv.FormatInt(size, 10), IfNoneMatch: "*"}}, nil
}

// PresignGet makes the service answer with Content-Disposition: attachment.
func (s *S3) PresignGet(ctx context.Context, key, filename string, ttl time.Duration) (string, error) {
	req, err := s.presign.PresignGetObject(ctx, &s3.GetObjectInput{
		Bucket: aws.String(s.cfg.Bucket), Key: aws.String(key),
		ResponseContentDisposition: aws.String(disposition.Attachment(filename)),
	}, s3.WithPresignExpires(ttl))
	if err != nil {
		return "", fmt.Errorf("presign get: %w", err)
	}
	return req.URL, nil
}

// Head describes an object.
func (s *S3) Head(ctx context.Context, key string) (Object, error) {
	out, err := s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(s.cfg.Bucket), Key: aws.String(key)})
	if err != nil {
		if isNotFound(err) {
			return Object{}, ErrNotFound
		}
		return Object{}, fmt.Errorf("head %s: %w", key, err)
	}
	o := Object{Key: key, Size: aws.ToInt64(out.ContentLength), ContentType: aws.ToString(out.ContentType)}
	if out.LastModified != nil {
		o.LastModified = out.LastModified.UTC()
	}
	return o, nil
}

// Put uploads an object in one PUT (S3 takes up to 5 GB so; an import's
// file is at most 256 MiB). A seekable r (a file) is signed and sent
// without being held in memory.
func (s *S3) Put(ctx context.Context, key, contentType string, size int64, r io.Reader) error {
	_, err := s.client.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(s.cfg.Bucket), Key: aws.String(key),
		Body: r, ContentLength: aws.Int64(size), ContentType: aws.String(contentType)})
	if err != nil {
		return fmt.Errorf("put %s: %w", key, err)
	}
	return nil
}

// Get opens an object's bytes as the service streams them.
func (s *S3) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(s.cfg.Bucket), Key: aws.String(key)})
	if err != nil {
		if isNotFound(err) {
			return nil, ErrNotFound
		}
		return nil, fmt.Errorf("get %s: %w", key, err)
	}
	return out.Body, nil
}

// Delete removes an object; S3 answers a missing key with success too.
func (s *S3) Delete(ctx context.Context, key string) error {
	_, err := s.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(s.cfg.Bucket), Key: aws.String(key)})
	if err != nil && !isNotFound(err) {
		return fmt.Errorf("delete %s: %w", key, err)
	}
	return nil
}

// List pages objects under prefix in key order.
func (s *S3) List(ctx context.Context, prefix, after string, limit int) ([]Object, error) {
	in := &s3.ListObjectsV2Input{Bucket: aws.String(s.cfg.Bucket), Prefix: aws.String(prefix), MaxKeys: aws.Int32(int32(limit))}
	if after != "" {
		in.StartAfter = aws.String(after)
	}
	out, err := s.client.ListObjectsV2(ctx, in)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", prefix, err)
	}
	objs := make([]Object, 0, len(out.Contents))
	for _, c := range out.Contents {
		o := Object{Key: aws.ToString(c.Key), Size: aws.ToInt64(c.Size)}
		if c.LastModified != nil {
			o.LastModified = c.LastModified.UTC()
		}
		objs = append(objs, o)
	}
	return objs, nil
}

// EnsureBucket creates the bucket unless it exists.
func (s *S3) EnsureBucket(ctx context.Context) error {
	if _, err := s.client.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(s.cfg.Bucket)}); err == nil {
		return nil
	} else if !isNotFound(err) {
		return fmt.Errorf("head bucket %s: %w", s.cfg.Bucket, err)
	}
	_, err := s.client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(s.cfg.Bucket)})
	var apiErr smithy.APIError
	if err != nil && errors.As(err, &apiErr) && (apiErr.ErrorCode() == "BucketAlreadyOwnedByYou" || apiErr.ErrorCode() == "BucketAlreadyExists") {
		return nil
	}
	if err != nil {
		return fmt.Errorf("create bucket %s: %w", s.cfg.Bucket, err)
	}
	return nil
}

func isNotFound(err error) bool {
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		switch apiErr.ErrorCode() {
		case "NotFound", "NoSuchKey", "NoSuchBucket":
			return true
		}
	}
	var re interface{ HTTPStatusCode() int }
	return errors.As(err, &re) && re.HTTPStatusCode() == http.StatusNotFound
}
